package a2av1_test

import (
	"testing"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/a2av1"
)

// The 1.0 codec's hot paths: a task answered (GetTask, SendMessage's
// result), a task read back by the client, and SendMessage's params read by
// the server and written by the client.

func benchTask() a2a.Task {
	m := a2a.Message{Role: a2a.RoleUser, MessageID: "7b1d8a4e-0d6a-4b83-9f5c-2f5ad9b0c111", TaskID: "t", ContextID: "c", Parts: []a2a.Part{a2a.TextPart("hello world")}}
	return a2a.Task{ID: "t", ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: "2026-11-22T10:00:00.000Z"},
		History: []a2a.Message{m, m}, Artifacts: []a2a.Artifact{{ArtifactID: "a", Name: "echo", Parts: []a2a.Part{a2a.TextPart("echo: hello world")}}}}
}

func BenchmarkAppendTask(b *testing.B) {
	task := benchTask()
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2av1.AppendTask(buf[:0], &task); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTask(b *testing.B) {
	task := benchTask()
	raw, err := a2av1.AppendTask(nil, &task)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2av1.DecodeTask(raw); err != nil {
			b.Fatal(err)
		}
	}
}

const benchSend = `{"message":{"role":"ROLE_USER","messageId":"7b1d8a4e-0d6a-4b83-9f5c-2f5ad9b0c111","parts":[{"text":"hello"}]},"configuration":{"returnImmediately":true}}`

func BenchmarkDecodeSendMessageRequest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2av1.DecodeSendMessageRequest([]byte(benchSend)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeGetTaskRequest(b *testing.B) {
	raw := []byte(`{"id":"0190f5c2-7d4e-7a1b-9c3d-0a1b2c3d4e5f","historyLength":10}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2av1.DecodeGetTaskRequest(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeSendMessageRequest(b *testing.B) {
	p, err := a2av1.DecodeSendMessageRequest([]byte(benchSend))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a2av1.EncodeSendMessageRequest("", p); err != nil {
			b.Fatal(err)
		}
	}
}
