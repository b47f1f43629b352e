#!/usr/bin/env python3
"""Check that `sam local start-api` loads every route of a template.

`make validate` runs it when SAM CLI's route loader (routes.py, see
../shared/tools/sam-local/README.md) is at hand. It runs the loader once per
environment and once more,
as a user's `sam local start-api` would start:

  - with the deploy parameter overrides of each environment of
    samconfig.toml (default, dev, prod: bearer tokens);
  - with a JWT authorizer instead (JwtIssuer and JwtAudience set, the bearer
    token parameters cleared);

and compares the routes SAM CLI found (method, path, function) with the
template's AWS::ApiGatewayV2::Route resources and the functions' HttpApi
events. A template SAM CLI cannot load, or a route it does not see, is a
problem; each is printed on its own line and the exit status is 1.

Usage: sam_local_routes.py TEMPLATE --routes PATH/TO/routes.py [--samconfig samconfig.toml]
"""

import argparse
import os
import shlex
import subprocess
import sys
import tomllib

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
sys.dont_write_bytecode = True  # no __pycache__ in infra/ from the import below

from sam_transform import load_template  # noqa: E402  (beside this script)

JWT = {"JwtIssuer": "https://issuer.example.com", "JwtAudience": "client-id", "BearerToken": "", "BearerTokens": ""}


def sub_target(value):
    """The logical id in !Sub 'integrations/${Name}', or None."""
    if isinstance(value, dict) and "Fn::Sub" in value and isinstance(value["Fn::Sub"], str):
        s = value["Fn::Sub"]
        if s.startswith("integrations/${") and s.endswith("}"):
            return s[len("integrations/${"):-1]
    return None


def ref_target(value):
    """The logical id a Ref or GetAtt names, or None."""
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"]
        if "Fn::GetAtt" in value:
            att = value["Fn::GetAtt"]
            return att[0] if isinstance(att, list) else str(att).split(".")[0]
    return None


def declared_routes(template):
    """The (method, path, function) of every HTTP route the template
    declares, and the problems reading them. An HTTP API with a
    CorsConfiguration answers CORS preflights (OPTIONS) on every route
    itself, and `sam local start-api` lists OPTIONS among each route's
    methods then: those count as declared."""
    resources = template.get("Resources") or {}
    routes, problems = set(), []
    cors = any(res.get("Type") == "AWS::ApiGatewayV2::Api" and "CorsConfiguration" in (res.get("Properties") or {})
               for res in resources.values())
    for name, res in resources.items():
        props = res.get("Properties") or {}
        if res.get("Type") == "AWS::ApiGatewayV2::Route":
            key = props.get("RouteKey")
            integ = resources.get(sub_target(props.get("Target")) or "", {})
            fn = ref_target((integ.get("Properties") or {}).get("IntegrationUri"))
            if not isinstance(key, str) or " " not in key or fn is None:
                problems.append(f"{name}: cannot tell its route key and function")
                continue
            method, path = key.split(" ", 1)
            routes.add((method, path, fn))
        elif res.get("Type") == "AWS::Serverless::Function":
            for event in (props.get("Events") or {}).values():
                if event.get("Type") == "HttpApi":
                    ep = event.get("Properties") or {}
                    routes.add((str(ep.get("Method", "ANY")).upper(), ep.get("Path", "$default"), name))
    if cors:
        routes |= {("OPTIONS", path, fn) for _, path, fn in routes}
    return routes, problems


def loaded_routes(routes_py, template, overrides):
    """Runs SAM CLI's loader; returns its routes, or an error message."""
    args = [sys.executable, routes_py, template] + [f"{k}={v}" for k, v in overrides.items()]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    lines = r.stdout.splitlines()
    if r.returncode != 0 or not lines or not lines[-1].startswith("ROUTES: ") or "error" in lines[-1]:
        last = lines[-1] if lines else (r.stderr.strip().splitlines() or ["no output"])[-1]
        return None, last
    found = set()
    for line in lines[:-1]:
        parts = line.split()
        if len(parts) < 3:
            continue
        for method in parts[0].split(","):
            found.add((method, parts[1], parts[2]))
    return found, None


def samconfig_overrides(path):
    """The deploy parameter overrides of every environment of samconfig.toml."""
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    envs = {}
    for env, sections in cfg.items():
        if not isinstance(sections, dict):
            continue  # version
        text = sections.get("deploy", {}).get("parameters", {}).get("parameter_overrides", "")
        if isinstance(text, list):
            text = " ".join(text)
        envs[env] = dict(kv.split("=", 1) for kv in shlex.split(text))
    return envs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template")
    ap.add_argument("--routes", required=True, help="SAM CLI's route loader (routes.py)")
    ap.add_argument("--samconfig", default="samconfig.toml")
    args = ap.parse_args()

    template = load_template(args.template)
    if template is None:
        return 1
    want, problems = declared_routes(template)
    envs = samconfig_overrides(args.samconfig)
    runs = [(f"samconfig.toml's {env} parameters", overrides) for env, overrides in sorted(envs.items())]
    runs.append(("JwtIssuer and JwtAudience", {**envs.get("default", {}), **JWT}))
    for label, overrides in runs:
        got, err = loaded_routes(args.routes, args.template, overrides)
        if err is not None:
            problems.append(f"sam local start-api cannot load the template with {label}: {err}")
            continue
        for method, path, fn in sorted(want - got):
            problems.append(f"sam local start-api, with {label}, does not serve {method} {path} ({fn})")
        for method, path, fn in sorted(got - want):
            problems.append(f"sam local start-api, with {label}, serves {method} {path} ({fn}), which the template does not declare")
    for p in problems:
        print(f"{args.template}: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"sam-local-routes: {args.template}: {len(want)} routes load with samconfig.toml's parameters ({', '.join(sorted(envs))}) and with a JWT authorizer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
