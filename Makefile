# a2a-lambda: a serverless host for A2A agents.
# `make run` serves the demo agent locally; `make test` runs every test.

GO        ?= go
GOFLAGS   ?=
PKGS      := ./...

.PHONY: run test lint fmt build bench load fuzz clean

# LOCAL_AWS runs a command with a local AWS stand-in (moto) and stops it
# afterwards; see infra/localaws/with-local-aws.
LOCAL_AWS := infra/localaws/with-local-aws

## run: serve the demo agent on 127.0.0.1:8000 with embedded defaults.
##      A2A_TASK_STORE_BACKEND=dynamodb keeps tasks in DynamoDB at AWS_ENDPOINT_URL;
##      without AWS_ENDPOINT_URL a local moto is started and the table created.
##      Push notifications may go to http and loopback webhooks (local only).
RUN_ENV := A2A_PUSH_ALLOW_INSECURE=$${A2A_PUSH_ALLOW_INSECURE:-true}
run:
ifeq ($(A2A_TASK_STORE_BACKEND)$(AWS_ENDPOINT_URL),dynamodb)
	$(RUN_ENV) A2A_TASK_STORE_TABLE=$${A2A_TASK_STORE_TABLE:-a2a-local-tasks} \
	A2A_TASK_STORE_CREATE_TABLE=$${A2A_TASK_STORE_CREATE_TABLE:-true} \
	$(LOCAL_AWS) --sdk-env $(GO) run ./cmd/a2a-local
else
	$(RUN_ENV) $(GO) run ./cmd/a2a-local
endif

## test: every test (unit, integration, interop, fuzz seed corpora), with moto
##       started for the AWS-backed tests (A2A_TEST_AWS_ENDPOINT) and stopped after
test: lint
	$(LOCAL_AWS) $(GO) test -count=1 $(PKGS)

## lint: gofmt and go vet must be clean
lint:
	@unformatted=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

## build: compile every package and command
build:
	$(GO) build $(PKGS)

## bench: in-process benchmarks of the hot paths (see README "Measured")
bench:
	$(LOCAL_AWS) $(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## load: wrk load test of the local server, server CPU per request (needs wrk)
load:
	infra/load/run.sh

## fuzz: run each fuzzer for FUZZTIME (default 60s); `make test` runs their seed corpora
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./pkg/jsonrpc
	$(GO) test -run '^$$' -fuzz '^FuzzMessageSendParams$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzAppendString$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzCheckURL$$' -fuzztime $(FUZZTIME) ./pkg/push/egress
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeJob$$' -fuzztime $(FUZZTIME) ./pkg/push/notify

clean:
	rm -rf bin .aws-sam functions/*/bootstrap
