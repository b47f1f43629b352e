package service

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"

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
	b, err := json.Marshal(&c)
	if err != nil {
		return "" // unencodable params were refused before (Validate)
	}
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
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
