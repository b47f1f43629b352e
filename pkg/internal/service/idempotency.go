package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/store"
)

// MessageFingerprint is what tells two sends of one message id apart: a
// digest of everything the send asks but its message id (the message's
// parts, roles, task, context, references, extensions and metadata, the
// send's configuration and metadata). A retry repeats its send exactly,
// so it has the fingerprint of the first; a client that reuses a message
// id for another message does not.
func MessageFingerprint(p *a2a.MessageSendParams) string {
	c := *p
	c.Message.MessageID = ""
	b, err := fingerprintJSON(&c)
	if err != nil {
		return "" // unencodable params were refused before (Validate)
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// fingerprintJSON returns the bytes json.Marshal(c) returns, which the
// fingerprints kept in the store are digests of, without its second pass
// over the message (encoding/json compacts what Message.MarshalJSON
// writes, escaping <, > and & for HTML as it goes): a quarter of a
// blocking send's fingerprint. That JSON is compact but a data part's
// data, kept as it was sent; a message with one is json.Marshal's.
func fingerprintJSON(c *a2a.MessageSendParams) ([]byte, error) {
	if slices.ContainsFunc(c.Message.Parts, func(p a2a.Part) bool { return p.Kind == a2a.PartKindData }) {
		return json.Marshal(c)
	}
	msg, err := c.Message.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(msg) + 64)
	b.WriteString(`{"message":`)
	json.HTMLEscape(&b, msg)
	if c.Configuration != nil {
		cfg, err := json.Marshal(c.Configuration)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"configuration":`)
		b.Write(cfg)
	}
	if len(c.Metadata) > 0 {
		md, err := json.Marshal(c.Metadata)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"metadata":`)
		b.Write(md)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
