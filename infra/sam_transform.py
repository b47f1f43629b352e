#!/usr/bin/env python3
"""Transform a SAM template to CloudFormation offline, as `sam deploy` would.

`make validate` runs it, then cfn-lint on its output. Before transforming it
checks what `sam build` and `sam package` would otherwise fail on, later:

  - every function built with `Metadata: BuildMethod: makefile` has its
    `build-<LogicalId>` target in the Makefile of its CodeUri;
  - every function of a provided.* runtime says how to build it;
  - every local CodeUri and DefinitionUri exists (a definition must be JSON).

Then it rewrites the local CodeUri/DefinitionUri paths to s3:// URIs (what
`sam package` does) and runs samtranslator with a fixed region and a fixed
map of AWS managed policies (the real translator asks IAM for them), so it
needs no network and no credentials. Every problem found is printed, one per
line, naming the resource; the exit status is 1 when there is any.

Usage: sam_transform.py TEMPLATE [-o OUTPUT.json]
"""

import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

from cfnlint.decode import decode  # noqa: E402  (after the region is set)
from samtranslator.model.exceptions import InvalidDocumentException  # noqa: E402
from samtranslator.translator.transform import transform  # noqa: E402

BUCKET = "s3://a2a-lambda-offline-validation"

# The AWS managed policies SAM may attach by name. The translator would list
# them from IAM; these ARNs are public and stable.
MANAGED_POLICIES = {
    name: "arn:aws:iam::aws:policy/" + path
    for name, path in {
        "AWSLambdaBasicExecutionRole": "service-role/AWSLambdaBasicExecutionRole",
        "AWSLambdaDynamoDBExecutionRole": "service-role/AWSLambdaDynamoDBExecutionRole",
        "AWSLambdaSQSQueueExecutionRole": "service-role/AWSLambdaSQSQueueExecutionRole",
        "AWSXrayWriteOnlyAccess": "AWSXrayWriteOnlyAccess",
        "AWSXRayDaemonWriteAccess": "AWSXRayDaemonWriteAccess",
    }.items()
}


class FixedManagedPolicies:
    """Stands in for samtranslator's ManagedPolicyLoader (which calls IAM)."""

    def load(self):
        return dict(MANAGED_POLICIES)


def is_local(uri):
    return isinstance(uri, str) and not uri.startswith("s3://")


def make_knows(directory, target):
    """Asks make (dry run: nothing is built) whether the Makefile in
    directory has a rule for target, as sam build will need. Returns None,
    or what make said."""
    try:
        r = subprocess.run(
            [os.environ.get("MAKE", "make"), "--dry-run", "--no-print-directory", "-C", directory, target,
             "ARTIFACTS_DIR=" + os.path.join(directory, ".aws-sam", "validate", "dry-run")],
            capture_output=True, text=True, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot run make: {e}"
    if r.returncode == 0:
        return None
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"make exited with status {r.returncode}"


def check_and_package(template, base):
    """Checks what sam build and sam package need, rewrites local URIs to
    s3:// ones in place, and returns the problems found."""
    problems = []
    globals_fn = (template.get("Globals") or {}).get("Function") or {}
    for name, res in (template.get("Resources") or {}).items():
        kind = res.get("Type")
        props = res.setdefault("Properties", {})
        if kind == "AWS::Serverless::Function":
            code = props.get("CodeUri", globals_fn.get("CodeUri"))
            runtime = props.get("Runtime", globals_fn.get("Runtime", ""))
            method = (res.get("Metadata") or {}).get("BuildMethod")
            if not is_local(code):
                continue
            src = os.path.normpath(os.path.join(base, code))
            if not os.path.isdir(src):
                problems.append(f"{name}: CodeUri {code!r} is not a directory")
                continue
            if method == "makefile":
                makefile = os.path.join(src, "Makefile")
                if not os.path.isfile(makefile):
                    problems.append(f"{name}: Metadata.BuildMethod is makefile, but {makefile} does not exist")
                elif (said := make_knows(src, f"build-{name}")) is not None:
                    if "No rule to make target" in said:
                        said = (f"{os.path.relpath(makefile)} has no build-{name} target: sam build would fail; "
                                f"add one that puts the function's bootstrap into $(ARTIFACTS_DIR)")
                    problems.append(f"{name}: Metadata.BuildMethod is makefile, but {said}")
            elif isinstance(runtime, str) and runtime.startswith("provided"):
                problems.append(f"{name}: runtime {runtime} needs Metadata.BuildMethod: makefile (and a build-{name} target)")
            props["CodeUri"] = f"{BUCKET}/{name}.zip"
        elif kind == "AWS::Serverless::StateMachine":
            uri = props.get("DefinitionUri")
            if not is_local(uri):
                continue
            path = os.path.normpath(os.path.join(base, uri))
            try:
                with open(path, encoding="utf-8") as f:
                    json.load(f)
            except FileNotFoundError:
                problems.append(f"{name}: DefinitionUri {uri!r} does not exist")
            except ValueError as e:
                problems.append(f"{name}: DefinitionUri {uri!r} is not JSON: {e}")
            props["DefinitionUri"] = f"{BUCKET}/{name}.asl.json"
    return problems


def load_template(path):
    """Return the template at path as cfn-lint decodes it, or None when it
    cannot be decoded, after printing why (one line per problem)."""
    template, matches = decode(path)
    if matches:
        for m in matches:
            print(f"{path}: {m}", file=sys.stderr)
        return None
    return template


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template")
    ap.add_argument("-o", "--output", help="where to write the CloudFormation template (JSON)")
    args = ap.parse_args()

    template = load_template(args.template)
    if template is None:
        return 1
    problems = check_and_package(template, os.path.dirname(os.path.abspath(args.template)))
    try:
        out = transform(template, {}, FixedManagedPolicies())
    except InvalidDocumentException as e:
        problems += [getattr(c, "message", str(c)) for c in e.causes]
    if problems:
        for p in problems:
            print(f"{args.template}: {p}", file=sys.stderr)
        return 1
    text = json.dumps(out, indent=1, sort_keys=True, default=str)
    if args.output:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
