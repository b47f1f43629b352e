# a2a-lambda: a serverless host for A2A agents.
# `make run` serves the demo agent locally; `make test` runs every test.

GO        ?= go
GOFLAGS   ?=
PKGS      := ./...
# INTEROP is the interoperability tests' own module (a2a-go, gRPC and
# protobuf stay out of the main go.mod); make test and lint run it too.
INTEROP   := pkg/interop
PYTHON    ?= python3
CFN_LINT  ?= cfn-lint
TEMPLATE  := template.yaml

# Lambda functions: one directory under functions/ each, built into one
# binary named bootstrap (what the provided.al2023 runtime runs), for arm64.
FUNCTIONS    := $(patsubst functions/%/main.go,%,$(wildcard functions/*/main.go))
LAMBDA_GO    := GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO)
LAMBDA_FLAGS := -trimpath -ldflags='-s -w' -tags lambda.norpc

.PHONY: run test lint fmt build functions validate deploy bench bench-peers load fuzz clean

# LOCAL_AWS runs a command with a local AWS stand-in (moto) and stops it
# afterwards; see infra/localaws/with-local-aws.
LOCAL_AWS := infra/localaws/with-local-aws

## run: serve the demo agent on 127.0.0.1:8000 with embedded defaults.
##      A2A_TASK_STORE_BACKEND=dynamodb keeps tasks in DynamoDB at AWS_ENDPOINT_URL;
##      without AWS_ENDPOINT_URL a local moto is started and the table created,
##      and files are kept in moto's S3 (bucket a2a-local-files).
##      Push notifications may go to http and loopback webhooks (local only).
RUN_ENV := A2A_PUSH_ALLOW_INSECURE=$${A2A_PUSH_ALLOW_INSECURE:-true}
run:
ifeq ($(A2A_TASK_STORE_BACKEND)$(AWS_ENDPOINT_URL),dynamodb)
	$(RUN_ENV) A2A_TASK_STORE_TABLE=$${A2A_TASK_STORE_TABLE:-a2a-local-tasks} \
	A2A_TASK_STORE_CREATE_TABLE=$${A2A_TASK_STORE_CREATE_TABLE:-true} \
	A2A_FILES_BUCKET=$${A2A_FILES_BUCKET:-a2a-local-files} \
	$(LOCAL_AWS) --sdk-env $(GO) run ./cmd/a2a-local
else
	$(RUN_ENV) $(GO) run ./cmd/a2a-local
endif

## test: every test (unit, integration, interop, fuzz seed corpora, the Lambda
##       binaries through the Runtime API), with moto started for the AWS-backed
##       tests (A2A_TEST_AWS_ENDPOINT) and stopped after; the interop module's
##       tests (a2a-go clients) with the same moto; then `make validate`
##       when cfn-lint is installed
test: lint
	$(LOCAL_AWS) sh -c '$(GO) test -count=1 $(PKGS) && cd $(INTEROP) && $(GO) test -count=1 ./...'
	@if command -v $(CFN_LINT) >/dev/null 2>&1; then $(MAKE) --no-print-directory validate; \
	else echo "make test: $(CFN_LINT) not found, so the template was not validated (pip install cfn-lint aws-sam-translator; then make validate)"; fi

## lint: gofmt and go vet must be clean
lint:
	@unformatted=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	cd $(INTEROP) && $(GO) vet ./...

fmt:
	gofmt -w $$(git ls-files '*.go')

## build: compile every package and command, and every Lambda function for
##        arm64 into bin/<function>/bootstrap
build: functions
	$(GO) build $(PKGS)

functions: $(FUNCTIONS:%=bin/%/bootstrap)

bin/%/bootstrap: FORCE
	$(LAMBDA_GO) build $(LAMBDA_FLAGS) -o $@ ./functions/$*

FORCE:

# sam build runs `make build-<LogicalId>` for every function of template.yaml
# (Metadata: BuildMethod: makefile, CodeUri: .), with ARTIFACTS_DIR set to
# the directory the function's code must end up in.
build-CardFunction:    FUNCTION := card
build-SendFunction:    FUNCTION := send
build-TasksFunction:   FUNCTION := tasks
build-WorkerFunction:  FUNCTION := worker
build-PushFunction:    FUNCTION := push
build-DeliverFunction: FUNCTION := deliver
build-SweepFunction:   FUNCTION := sweep
SAM_TARGETS := build-CardFunction build-SendFunction build-TasksFunction build-WorkerFunction build-PushFunction build-DeliverFunction build-SweepFunction
.PHONY: $(SAM_TARGETS)
$(SAM_TARGETS):
	@test -n "$(ARTIFACTS_DIR)" || { echo "$@: ARTIFACTS_DIR is not set; sam build sets it (or: make $@ ARTIFACTS_DIR=dir)" >&2; exit 1; }
	@test -f functions/$(FUNCTION)/main.go || { echo "$@: functions/$(FUNCTION) does not exist yet" >&2; exit 1; }
	$(MAKE) --no-print-directory bin/$(FUNCTION)/bootstrap
	mkdir -p "$(ARTIFACTS_DIR)"
	cp bin/$(FUNCTION)/bootstrap "$(ARTIFACTS_DIR)/bootstrap"

## validate: check template.yaml offline: cfn-lint on it; the SAM transform
##           (infra/sam_transform.py: build targets, local paths, samtranslator)
##           and cfn-lint on its output; the state machine (cmd/asl-check);
##           the Rules' functions (cmd/rules-check); and, when SAM CLI's route
##           loader is at SAM_LOCAL, that `sam local start-api` loads every
##           route (infra/sam_local_routes.py)
VALIDATE_DIR := .aws-sam/validate
SAM_LOCAL    ?= ../shared/tools/sam-local
validate:
	$(CFN_LINT) $(TEMPLATE)
	$(PYTHON) infra/sam_transform.py $(TEMPLATE) -o $(VALIDATE_DIR)/template.json
	$(CFN_LINT) $(VALIDATE_DIR)/template.json
	$(GO) run ./cmd/asl-check $(TEMPLATE)
	$(GO) run ./cmd/rules-check $(TEMPLATE)
	@if [ -f "$(SAM_LOCAL)/routes.py" ]; then \
		echo "$(PYTHON) infra/sam_local_routes.py $(TEMPLATE) --routes $(SAM_LOCAL)/routes.py"; \
		$(PYTHON) infra/sam_local_routes.py $(TEMPLATE) --routes "$(SAM_LOCAL)/routes.py"; \
	else echo "validate: no SAM CLI route loader at $(SAM_LOCAL)/routes.py, so sam local's route loading was not checked (SAM_LOCAL=dir)"; fi

## deploy: sam build, then sam deploy with samconfig.toml's default environment
##         (needs the SAM CLI and AWS credentials; first time: sam deploy --guided)
deploy:
	sam build
	sam deploy $(DEPLOY_FLAGS)

## bench: in-process benchmarks of the hot paths and the Lambda binaries' cold
##        starts, each as a ratio to a minimal aws-lambda-go binary measured in
##        turn with it (see docs/measured.md)
bench:
	$(LOCAL_AWS) $(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## bench-peers: the local server side by side with the official a2a-go v2
##              server (pkg/interop/cmd/a2ago-echo) and @a2a-js/sdk 0.3's
##              (pkg/interop/cmd/bench-peers/a2ajs, installed by npm; left
##              out without node and npm) under the same wrk load: server
##              CPU per request, requests/s, p50/p99 and start-up, with the
##              ratios (needs wrk; BENCH_PEERS_FLAGS, e.g. -duration 5s
##              -rounds 3 -js=false; see docs/measured.md)
BENCH_PEERS_FLAGS ?=
bench-peers:
	@command -v wrk >/dev/null 2>&1 || { echo "make bench-peers: wrk is not installed; it is the load generator (Debian: apt-get install wrk)" >&2; exit 1; }
	cd $(INTEROP) && $(GO) run ./cmd/bench-peers -repo $(CURDIR) $(BENCH_PEERS_FLAGS)

## load: wrk load test of the local server, server CPU per request (needs wrk)
load:
	infra/load/run.sh

## fuzz: run each fuzzer for FUZZTIME (default 60s); `make test` runs their seed corpora
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeEvent$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzFormatTime$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzMessageSendParams$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzReadMessageSendParams$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzReadTaskQueryParams$$' -fuzztime $(FUZZTIME) ./pkg/a2a
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeItem$$' -fuzztime $(FUZZTIME) ./pkg/dynamodb
	$(GO) test -run '^$$' -fuzz '^FuzzAppendCard$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeListTasksRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeSendMessageRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeStreamResponse$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzReadSendRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzReadGetTaskRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/a2av1
	$(GO) test -run '^$$' -fuzz '^FuzzAppendResponse$$' -fuzztime $(FUZZTIME) ./pkg/internal/apigw
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/apigw
	$(GO) test -run '^$$' -fuzz '^FuzzNewHTTPRequest$$' -fuzztime $(FUZZTIME) ./pkg/internal/apigw
	$(GO) test -run '^$$' -fuzz '^FuzzResponseWriter$$' -fuzztime $(FUZZTIME) ./pkg/internal/apigw
	$(GO) test -run '^$$' -fuzz '^FuzzFileURI$$' -fuzztime $(FUZZTIME) ./pkg/internal/files
	$(GO) test -run '^$$' -fuzz '^FuzzUnquote$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonread
	$(GO) test -run '^$$' -fuzz '^FuzzValid$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonread
	$(GO) test -run '^$$' -fuzz '^FuzzCheckMembers$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonrpc
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonrpc
	$(GO) test -run '^$$' -fuzz '^FuzzAppendString$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonw
	$(GO) test -run '^$$' -fuzz '^FuzzFloat$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonw
	$(GO) test -run '^$$' -fuzz '^FuzzValue$$' -fuzztime $(FUZZTIME) ./pkg/internal/jsonw
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./pkg/internal/oap
	$(GO) test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./pkg/internal/objectstore/folder
	$(GO) test -run '^$$' -fuzz '^FuzzCheckURL$$' -fuzztime $(FUZZTIME) ./pkg/internal/push/egress
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeJob$$' -fuzztime $(FUZZTIME) ./pkg/internal/push/notify
	$(GO) test -run '^$$' -fuzz '^FuzzSQSText$$' -fuzztime $(FUZZTIME) ./pkg/internal/push/serverless
	$(GO) test -run '^$$' -fuzz '^FuzzFingerprintJSON$$' -fuzztime $(FUZZTIME) ./pkg/internal/service
	$(GO) test -run '^$$' -fuzz '^FuzzRecords$$' -fuzztime $(FUZZTIME) ./pkg/internal/streamscall
	$(GO) test -run '^$$' -fuzz '^FuzzJSONHandler$$' -fuzztime $(FUZZTIME) ./pkg/internal/telemetry
	$(GO) test -run '^$$' -fuzz '^FuzzRedactSecretText$$' -fuzztime $(FUZZTIME) ./pkg/internal/telemetry
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./pkg/samtemplate

clean:
	rm -rf bin .aws-sam functions/*/bootstrap
