// Package testkit holds the project's test rigs, one package each, kept off
// the production floors: no package that ships in a binary imports them.
//
//	awstest     the local AWS stand-in (moto) for tests: clients, tables, queues
//	sfntest     the project's state machine run by moto, its worker canned or bridged
//	lambdaemu   a Lambda Runtime API emulator that drives a real function binary
//	dynamocost  DynamoDB request and capacity accounting by the published rules
//	pushtest    a webhook receiver that verifies what it receives
//	clienttest  a local A2A server for client tests
//	syncbuf     a buffer one goroutine writes while another reads it
//	envtest     a getenv function over name, value pairs
//	jsontest    strings that hand-written JSON encoders get wrong
//	agenttest   an agent run behind the real service, store and runner
//
// Test rigs that belong to one package's contract sit beside it instead
// (pkg/store/storetest, pkg/internal/runner/runnertest, pkg/clock/clocktest,
// pkg/testkit/keystest).
package testkit
