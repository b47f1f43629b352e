package store

import (
	"encoding/json"
	"fmt"
)

// MaxContentBytes is the largest JSON encoding of one message, one artifact
// (with all its appended chunks) or one request metadata object that a store
// accepts. It keeps every DynamoDB item under the 400 KB item limit with room
// for keys and attributes; every store enforces it so they behave alike.
const MaxContentBytes = 380 << 10

// maxEscape is the most bytes JSON takes for one byte of a string:
// encoding/json writes <, > and & (and control characters, invalid UTF-8)
// as \u003c: six bytes.
const maxEscape = 6

// EncodeContent returns the JSON of content a store keeps (a message, an
// artifact with all its chunks, request metadata, interrupt details), or a
// *TooLargeError naming what when it takes more than MaxContentBytes. It is
// the one size rule of every store: the DynamoDB store writes these bytes,
// and DynamoDB counts them as written, escapes included (200 KB of '"'
// take 400 KB); the memory store measures with it too (CheckContent), so
// that what a local run accepts, DynamoDB does not refuse.
func EncodeContent(what string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	if len(b) > MaxContentBytes {
		return nil, &TooLargeError{What: fmt.Sprintf("%s (%d bytes)", what, len(b)), Limit: MaxContentBytes}
	}
	return b, nil
}

// CheckContent refuses content as EncodeContent does, without encoding it
// when ContentMayExceed(approx) says it cannot exceed the limit: the
// small messages of most requests cost nothing.
func CheckContent(what string, approx int, v any) error {
	if !ContentMayExceed(approx) {
		return nil
	}
	_, err := EncodeContent(what, v)
	return err
}

// ContentMayExceed reports whether content whose approximate size is
// approx, an estimate at least the bytes of its strings (pkg/a2a's
// ApproxSize), might exceed MaxContentBytes once escaped, so that it must
// be measured (EncodeContent).
func ContentMayExceed(approx int) bool { return approx > MaxContentBytes/maxEscape }
