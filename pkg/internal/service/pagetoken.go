package service

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
)

// Page tokens are opaque to clients and bound to the caller: a token carries
// a digest of the owner it was issued to, and is refused for anyone else. The
// store's own cursor only positions a query that is already restricted to the
// caller's tasks, so a token cannot reach another caller's tasks even if its
// cursor part is forged.

const ownerTagLen = 8

func ownerTag(owner string) []byte {
	sum := sha256.Sum256([]byte("a2a-lambda/page-token\x00" + owner))
	return sum[:ownerTagLen]
}

func encodePageToken(owner, cursor string) string {
	b := append(ownerTag(owner), cursor...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodePageToken(owner, token string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) <= ownerTagLen || subtle.ConstantTimeCompare(b[:ownerTagLen], ownerTag(owner)) != 1 {
		return "", a2a.InvalidParams("params.pageToken", "is not a page token issued to this caller; start again without pageToken")
	}
	return string(b[ownerTagLen:]), nil
}

// pageOf reads a list request's page: its size, a2a.DefaultPageSize when
// it names none, and the store's cursor its page token carries ("" for the
// first page).
func pageOf(owner string, size *int, token string) (int, string, error) {
	n := a2a.DefaultPageSize
	if size != nil {
		n = *size
	}
	if token == "" {
		return n, "", nil
	}
	cursor, err := decodePageToken(owner, token)
	return n, cursor, err
}

// nextPageToken is the page token of the page after the one the store
// ended at cursor, "" on the last page.
func nextPageToken(owner, cursor string) string {
	if cursor == "" {
		return ""
	}
	return encodePageToken(owner, cursor)
}
