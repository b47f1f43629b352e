#!/usr/bin/env python3
"""Local AWS stand-in for tests and `make run`: moto_server, configured.

Starts moto's server (DynamoDB, DynamoDB Streams, SQS, Step Functions, ...) on
one loopback port with two changes that the project relies on:

* Step Functions "parser mode" is on (state machines really run) and moto's
  Lambda does not use Docker (a Lambda task returns its payload, or the next
  canned result queued with POST /moto-api/static/lambda-simple/response).
* Work-around for moto 5.2.1 (getmoto/moto issue 10077): in parser mode every
  StartExecution after the first fails with "cannot pickle '_thread.RLock'
  object", because start_execution deep-copies the state machine together
  with its live executions and its backend. The copy made here shares those
  two attributes instead of copying them.
* DynamoDB requests run one at a time. moto serves requests on threads but
  does not make a conditional write atomic: it evaluates the condition, then
  writes, with no lock between; TransactWriteItems checks and writes item by
  item and, when one fails, restores a snapshot of the whole table taken
  before it started, erasing writes that other requests made meanwhile.
  Measured with 50 concurrent conditional transactions on one item: two or
  more "won". DynamoDB itself is atomic per write and per transaction, which
  the store's race tests rely on. moto is bound by Python's GIL anyway, so
  the lock costs little throughput.
* A Lambda bridge, for tests only: moto cannot run a function's code without
  Docker, so a function created with the environment variable
  MOTO_LAMBDA_BRIDGE_URL is invoked by POSTing its payload to that URL and
  returning the response body. A test serves its real handler there, and the
  state machines moto runs call it like Step Functions calls a Lambda.
* An UpdateItem that would make an item too large is refused without
  changing it. moto applies the update's actions to the stored item one by
  one and raises the size error only when an action overflows, leaving the
  earlier actions applied; DynamoDB writes nothing.
* A state machine can start executions (arn:aws:states:::states:
  startExecution): moto's integration calls this server back (MOTO_PORT is
  set to its port), with the API's parameter names, which moto 5.2.1 does
  not pass (see fix_stepfunctions_start_execution).
* Its memory is bounded (A2A_LOCAL_AWS_MAX_MEMORY_MB, default 8192, of
  address space; 0 lifts the bound). moto keeps everything in memory and
  deletes nothing: items past their TTL stay, and so does every stream
  record (two images of the item per change), so a load test against it
  grows it by the size of all it was sent. At the bound a request fails
  with an error (MemoryError, an HTTP 500) instead of the machine running
  out of memory.

The process exits by itself when its parent dies (so a killed test binary or
shell never leaves a server behind), and on SIGTERM/SIGINT.

Usage: moto_server_launcher.py --port PORT [--host 127.0.0.1]
"""

import argparse
import copy
import json
import os
import sys
import threading
import time
import types

# Attributes of a moto StateMachine that start_execution must share, not copy.
_SHARED_ATTRIBUTES = ("executions", "backend")


def _deepcopy_sharing(obj, memo=None):
    """copy.deepcopy that keeps obj's executions and backend by reference."""
    memo = {} if memo is None else memo
    for name in _SHARED_ATTRIBUTES:
        value = getattr(obj, name, None)
        if value is not None:
            # deepcopy returns memo[id(x)] for objects it has "already copied".
            memo[id(value)] = value
    return copy.deepcopy(obj, memo)


def patch_stepfunctions_deepcopy():
    """Apply the moto 5.2.1 start_execution work-around (issue 10077)."""
    from moto.stepfunctions.parser import models

    if not hasattr(models, "copy"):
        raise SystemExit("moto.stepfunctions.parser.models no longer imports copy; "
                         "re-check the issue 10077 work-around for this moto version")
    models.copy = types.SimpleNamespace(deepcopy=_deepcopy_sharing, copy=copy.copy)


def serialize_dynamodb():
    """Make every DynamoDB request atomic with respect to the others."""
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    call_action = DynamoHandler.call_action

    def call_action_locked(self):
        with lock:
            return call_action(self)

    DynamoHandler.call_action = call_action_locked


def atomic_update_expressions():
    """Undo a partly applied update expression when it fails."""
    from moto.dynamodb.parsing.executors import UpdateExpressionExecutor

    execute = UpdateExpressionExecutor.execute

    def execute_all_or_nothing(self, node=None):
        if node is not None:
            return execute(self, node)
        saved = copy.deepcopy(self.item.attrs)
        try:
            return execute(self)
        except Exception:
            self.item.attrs = saved
            raise

    UpdateExpressionExecutor.execute = execute_all_or_nothing


def bridge_lambda_invocations():
    """Invoke functions that name a MOTO_LAMBDA_BRIDGE_URL over HTTP.

    A synchronous invocation (Step Functions' lambda:invoke) waits for the
    bridge's answer. An asynchronous one (InvocationType Event) is answered
    202 at once and POSTed to the bridge from a thread of its own, as Lambda
    queues it and runs it later (moto itself runs it before answering)."""
    import threading
    import urllib.error
    import urllib.request

    from moto.awslambda_simple import models

    original = models.LambdaSimpleBackend.invoke

    def post(url, data, response_headers):
        req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=900) as resp:
                return resp.read()
        except urllib.error.HTTPError as e:
            # A function error: Step Functions sees Lambda.Unknown-like failure.
            response_headers["x-amz-function-error"] = "Unhandled"
            return e.read()
        except OSError as e:  # the bridge is gone (its test ended)
            response_headers["x-amz-function-error"] = "Unhandled"
            return json.dumps({"errorType": "BridgeUnreachable", "errorMessage": str(e)}).encode()

    def invoke(self, function_name, qualifier, body, headers, response_headers):
        try:
            fn = self.get_function(function_name, qualifier)
            url = (fn.environment_vars or {}).get("MOTO_LAMBDA_BRIDGE_URL")
        except Exception:  # unknown function: moto's own behaviour
            url = None
        if not url:
            return original(self, function_name, qualifier, body, headers, response_headers)
        data = body if isinstance(body, bytes) else (body or "").encode()
        if (headers or {}).get("X-Amz-Invocation-Type") == "Event":
            threading.Thread(target=post, args=(url, data, {}), daemon=True).start()
            return b""
        return post(url, data, response_headers)

    models.LambdaSimpleBackend.invoke = invoke


def enable_stepfunctions_parser_mode():
    """Run state machines for real; Lambda tasks echo without Docker."""
    from moto.core import config

    config.default_user_config["stepfunctions"] = {"execute_state_machine": True}
    config.default_user_config["lambda"] = {"use_docker": False}


def exit_with_parent(parent_pid):
    """Exit as soon as the process that started us is gone."""

    def watch():
        while True:
            if os.getppid() != parent_pid:
                os._exit(0)
            time.sleep(0.5)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def fix_stepfunctions_start_execution():
    """A state machine's startExecution task (arn:aws:states:::states:
    startExecution) fails in moto 5.2.1 with KeyError 'StateMachineArn': the
    parser passes the state's parameter names (StateMachineArn, Name, Input)
    to a boto3 client made with parameter validation off, whose serializer
    knows the API's names (stateMachineArn, name, input). Renames them."""
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import (
        state_task_service_sfn as sfn_service,
    )

    cls = sfn_service.StateTaskServiceSfn
    normalise = cls._normalise_parameters

    def normalise_names(self, parameters, boto_service_name=None, service_action_name=None):
        normalise(self, parameters, boto_service_name=boto_service_name, service_action_name=service_action_name)
        if service_action_name is None and self._get_boto_service_action() == "start_execution":
            for name in ("StateMachineArn", "Name", "Input"):
                if name in parameters:
                    parameters[name[0].lower() + name[1:]] = parameters.pop(name)

    cls._normalise_parameters = normalise_names


def bound_memory():
    """Caps the process's address space (see the module's doc)."""
    mb = int(os.environ.get("A2A_LOCAL_AWS_MAX_MEMORY_MB", "8192") or "0")
    if mb <= 0:
        return
    import resource
    limit = mb << 20
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    # Threads reserve address space for their stacks: keep them small, so
    # that the bound counts data, not idle stacks.
    threading.stack_size(1 << 20)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)

    exit_with_parent(os.getppid())
    bound_memory()
    try:
        import moto
        from moto import server
    except ImportError as err:
        sys.stderr.write(f"moto is not installed ({err}): pip install \"moto[server]==5.2.1\"\n")
        return 3
    if moto.__version__ != "5.2.1":
        sys.stderr.write(f"warning: moto {moto.__version__} found, the work-arounds target 5.2.1\n")
    patch_stepfunctions_deepcopy()
    serialize_dynamodb()
    atomic_update_expressions()
    bridge_lambda_invocations()
    enable_stepfunctions_parser_mode()
    fix_stepfunctions_start_execution()
    # State machines that start executions (arn:aws:states:::states:
    # startExecution) call moto back at localhost:MOTO_PORT (default 5000).
    os.environ["MOTO_PORT"] = str(args.port)
    server.main(["-H", args.host, "-p", str(args.port)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
