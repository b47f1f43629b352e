package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Defaults of the file settings.
const (
	DefaultFilesInlineLimit    = 32 << 10
	DefaultFilesURLTTL         = 15 * time.Minute
	DefaultFilesMaxUploadBytes = 100 << 20
	DefaultMaxParts            = 100
	// maxInlineLimit keeps an inline part well inside a task item.
	maxInlineLimit = 256 << 10
	// maxUploadBytes is S3's largest single PUT.
	maxUploadBytes = 5 << 30
	// maxURLTTL is S3's longest presigned URL (a role's credentials end
	// it sooner).
	maxURLTTL = 7 * 24 * time.Hour
)

// Files says where the content parts too large for a task item are kept,
// and the limits of files.
type Files struct {
	// Bucket is the S3 bucket that keeps them (A2A_FILES_BUCKET). Empty,
	// the local server keeps them in Dir and the Lambda functions keep
	// none (parts stay inline, and what a task item cannot hold is
	// refused).
	Bucket string
	// Dir is the local server's folder of files (A2A_FILES_DIR; default
	// a2a-lambda-files in the system's temporary directory).
	Dir string
	// InlineLimit: a part whose JSON encoding is larger is kept as a file
	// (A2A_FILES_INLINE_LIMIT_BYTES).
	InlineLimit int
	// URLTTL is the lifetime of the presigned URLs that reads show and
	// uploads take (A2A_FILES_URL_TTL_SECONDS).
	URLTTL time.Duration
	// MaxUploadBytes bounds a file (A2A_FILES_MAX_UPLOAD_BYTES).
	MaxUploadBytes int64
	// ExpirationDays is the bucket's lifecycle: files are deleted this
	// many days after they are stored (A2A_FILES_EXPIRATION_DAYS, set by
	// the stack; 0 unknown).
	ExpirationDays int
}

// DefaultFilesDir is the local server's folder of files by default.
func DefaultFilesDir() string { return filepath.Join(os.TempDir(), "a2a-lambda-files") }

// files reads the file settings; a lifecycle shorter than the tasks' TTL
// (which CloudFormation Rules cannot compare) is refused.
func (r *reader) files(taskTTL time.Duration) Files {
	f := Files{
		Bucket:         strings.TrimSpace(r.getenv("A2A_FILES_BUCKET")),
		Dir:            r.str("A2A_FILES_DIR", DefaultFilesDir()),
		InlineLimit:    r.intRange("A2A_FILES_INLINE_LIMIT_BYTES", DefaultFilesInlineLimit, 1024, maxInlineLimit),
		URLTTL:         r.seconds("A2A_FILES_URL_TTL_SECONDS", DefaultFilesURLTTL, 1, int(maxURLTTL/time.Second)),
		MaxUploadBytes: int64(r.intRange("A2A_FILES_MAX_UPLOAD_BYTES", DefaultFilesMaxUploadBytes, 1, maxUploadBytes)),
		ExpirationDays: r.intRange("A2A_FILES_EXPIRATION_DAYS", 0, 0, 367),
	}
	if d := f.ExpirationDays; d > 0 && time.Duration(d)*24*time.Hour < taskTTL {
		r.fail("A2A_FILES_EXPIRATION_DAYS", strconv.Itoa(d), fmt.Sprintf("must be at least A2A_TASK_TTL_SECONDS (%d) in days: the bucket would delete files their tasks still name", int(taskTTL/time.Second)))
	}
	if f.Bucket != "" && !validBucketName(f.Bucket) {
		r.fail("A2A_FILES_BUCKET", f.Bucket, "must be an S3 bucket name: 3 to 63 lower-case letters, digits, '.' and '-'")
	}
	return f
}

func validBucketName(name string) bool {
	if len(name) < 3 || len(name) > 63 || name[0] == '-' || name[0] == '.' || name[len(name)-1] == '-' || name[len(name)-1] == '.' {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
