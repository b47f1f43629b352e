package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/jsonw"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// MessageFingerprint is what tells two sends of one message id apart: a
// digest of everything the send asks but its message id (the message's
// parts, roles, task, context, references, extensions and metadata, the
// send's configuration and metadata). A retry repeats its send exactly,
// so it has the fingerprint of the first; a client that reuses a message
// id for another message does not.
func MessageFingerprint(p *a2a.MessageSendParams) string {
	buf := fingerprintBuffers.Get()
	b, err := appendFingerprintJSON(*buf, p)
	sum := sha256.Sum256(b)
	fingerprintBuffers.Put(buf, b)
	if err != nil {
		return "" // unencodable params were refused before (Validate)
	}
	var fp [22]byte // base64.RawURLEncoding.EncodedLen(16)
	base64.RawURLEncoding.Encode(fp[:], sum[:16])
	return string(fp[:])
}

// fingerprintBuffers recycles the buffers a send's JSON is digested from:
// digested, its bytes are not needed.
var fingerprintBuffers = jsonw.Buffers{Max: 64 << 10}

// appendFingerprintJSON appends the bytes json.Marshal returns for p
// without its message id, which the fingerprints kept in the store are
// digests of, without encoding/json's second pass over the message (it
// compacts what Message.MarshalJSON writes, escaping <, > and & for HTML as
// it goes) or its reflection over the configuration: that JSON is compact,
// so only a message or configuration with a character to escape is copied
// again. A data part's data is kept as it was sent: a message with one is
// json.Marshal's, as is a configuration with a push notification config.
func appendFingerprintJSON(b []byte, p *a2a.MessageSendParams) ([]byte, error) {
	if slices.ContainsFunc(p.Message.Parts, func(p a2a.Part) bool { return p.Kind == a2a.PartKindData }) {
		c := *p
		c.Message.MessageID = ""
		whole, err := json.Marshal(&c)
		return append(b, whole...), err
	}
	msg := p.Message
	msg.MessageID = ""
	b = append(b, `{"message":`...)
	start := len(b)
	b, err := msg.AppendModelJSON(b)
	if err != nil {
		return nil, err
	}
	cfg := p.Configuration
	if cfg != nil && cfg.PushNotificationConfig == nil {
		b = appendConfigJSON(append(b, `,"configuration":`...), cfg)
		cfg = nil
	}
	if m := b[start:]; needsHTMLEscape(m) {
		esc := bytes.NewBuffer(slices.Clone(b[:start]))
		json.HTMLEscape(esc, m)
		b = esc.Bytes()
	}
	if cfg != nil {
		whole, err := json.Marshal(cfg)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"configuration":`...), whole...)
	}
	if len(p.Metadata) > 0 {
		md, err := json.Marshal(p.Metadata)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"metadata":`...), md...)
	}
	return append(b, '}'), nil
}

// appendConfigJSON appends the compact JSON of c, which has no push
// notification config, as encoding/json writes it but for the escaping of
// <, > and & (see needsHTMLEscape).
func appendConfigJSON(b []byte, c *a2a.MessageSendConfiguration) []byte {
	b = jsonw.Strings(append(b, '{'), "acceptedOutputModes", c.AcceptedOutputModes)
	if c.HistoryLength != nil {
		b = strconv.AppendInt(jsonw.Key(b, "historyLength"), int64(*c.HistoryLength), 10)
	}
	if c.Blocking != nil {
		b = strconv.AppendBool(jsonw.Key(b, "blocking"), *c.Blocking)
	}
	return append(b, '}')
}

// needsHTMLEscape reports whether json.HTMLEscape would change b: whether
// it holds <, >, & or the UTF-8 of U+2028 or U+2029.
func needsHTMLEscape(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '<', c == '>', c == '&':
			return true
		case c == 0xe2 && i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xa8 || b[i+2] == 0xa9):
			return true
		}
	}
	return false
}

// duplicate answers a send whose message id was used before, within the
// idempotency window (dup is the store's refusal of its task or record):
// with the same message, a retry, with the task its first send made,
// starting nothing; with another message, a clear refusal. A first use
// past the window is errMessageIDFree: the id is free again.
func (s *Service) duplicate(ctx context.Context, owner, messageID string, dup *store.DuplicateError, fingerprint string, opts store.GetOptions) (*a2a.Task, error) {
	if !dup.CreatedAt.IsZero() && !s.clock.Now().Before(dup.CreatedAt.Add(s.cfg.IdempotencyWindow)) {
		return nil, errMessageIDFree
	}
	if dup.Fingerprint != "" && fingerprint != "" && dup.Fingerprint != fingerprint {
		return nil, a2a.InvalidParams("params.message.messageId",
			"%q was already used for a different message (task %s) within the idempotency window of %s: send this message with a new messageId; a retry repeats its first send exactly",
			messageID, dup.TaskID, s.cfg.IdempotencyWindow)
	}
	if first := dup.Task; first != nil && first.Owner == owner {
		return s.wire(ctx, withHistory(first, opts.HistoryLength)), nil
	}
	return s.read(ctx, owner, dup.TaskID, opts)
}
