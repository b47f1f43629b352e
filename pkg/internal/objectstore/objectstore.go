// Package objectstore keeps objects by key: the files of tasks too large
// for a task item (pkg/internal/files). Two stores implement Store and pass the same
// contract suite (objectstoretest.Run): S3 (pkg/internal/objectstore/s3store, on
// AWS, or moto in tests) and a local folder whose objects the local server
// serves by signed URL (pkg/internal/objectstore/folder).
package objectstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// Info describes a stored object.
type Info struct {
	Size        int64
	ContentType string
	// SHA256 is the hex SHA-256 of the content as the store computed or
	// verified it when it was stored, or "" when the store did neither:
	// moto's S3 keeps the checksum a presigned upload declares without
	// checking it, so it is not reported (S3 itself checks it and refuses
	// content that does not match).
	SHA256 string
	// Metadata is the user metadata stored with the object, with
	// lower-case keys.
	Metadata map[string]string
}

// PutOptions describe an object to store.
type PutOptions struct {
	ContentType string
	// SHA256, when set, is the hex SHA-256 of the content: the store
	// refuses content that does not match (ErrDigest).
	SHA256 string
	// Metadata is stored with the object (keys of lower-case letters,
	// digits and '-').
	Metadata map[string]string
}

// Errors.
var (
	// ErrNotFound: no object has the key.
	ErrNotFound = errors.New("objectstore: no such object")
	// ErrDigest: the content does not match the SHA-256 it was stored
	// with.
	ErrDigest = errors.New("objectstore: the content does not match its SHA-256")
)

// Store keeps objects. Implementations must pass objectstoretest.Run.
//
// Keys are paths of letters, digits, '-', '_', '.' and '/' (no empty, "."
// or ".." segment). An object is stored whole or not at all: a reader never
// sees part of one, and a failed Put leaves the key as it was.
type Store interface {
	// Put stores size bytes of body (read from its start; it may be read
	// again when a call is retried) at key, replacing any object there.
	Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o PutOptions) error
	// Get returns the object's content, which the caller closes, and its
	// Info; ErrNotFound when there is none.
	Get(ctx context.Context, key string) (io.ReadCloser, Info, error)
	// Head returns the object's Info; ErrNotFound when there is none.
	Head(ctx context.Context, key string) (Info, error)
	// Delete removes the object; removing a missing one is not an error.
	Delete(ctx context.Context, key string) error
	// PresignGet returns a URL that reads the object with a plain GET,
	// without credentials, until ttl has passed; after that it answers
	// HTTP 403 with a body that says why.
	PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error)
	// PresignPut returns a URL and the headers a client must send with it
	// to store an object of exactly size bytes at key with a plain PUT,
	// with o's content type, SHA-256 (required) and metadata, until ttl
	// has passed. Content of another size is refused; content with
	// another SHA-256 is refused, or stored with an empty Info.SHA256
	// (see Info).
	PresignPut(ctx context.Context, key string, size int64, o PutOptions, ttl time.Duration) (string, http.Header, error)
}

// ValidKey reports whether key is a key Store accepts.
func ValidKey(key string) bool {
	if key == "" || len(key) > 512 {
		return false
	}
	seg := 0
	for i := 0; i <= len(key); i++ {
		if i == len(key) || key[i] == '/' {
			s := key[seg:i]
			if s == "" || s == "." || s == ".." {
				return false
			}
			seg = i + 1
			continue
		}
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ValidMetadataKey reports whether k is a metadata key Store accepts.
func ValidMetadataKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
