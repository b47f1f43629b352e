package a2a

import (
	"encoding/hex"
	"strings"
)

// The files extension: upload a file before the message that names it.
const MethodFilesCreateUpload = "files/createUpload"

// FileURIScheme is the scheme of the URIs of files the host keeps: a
// message's file part names an uploaded file with one, and the host keeps
// content parts too large for a task item under one. Reads show such a
// part with a URL that fetches it (presigned, short-lived) instead.
const FileURIScheme = "a2a-file"

// FileUploadParams are the params of files/createUpload: the file to
// upload.
type FileUploadParams struct {
	// Name and MediaType are the file's, as the file part will give them
	// (both optional; the content is stored with the media type).
	Name      string `json:"name,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
	// Size is the content's length in bytes, which the upload must be.
	Size int64 `json:"size"`
	// SHA256 is the content's SHA-256, in hex (what sha256sum prints).
	SHA256 string `json:"sha256"`
}

// FileUploadResult is the result of files/createUpload.
type FileUploadResult struct {
	// URI names the file in a file part (0.3 file.uri, 1.0 url), once
	// the content is uploaded.
	URI string `json:"uri"`
	// UploadURL takes the content with Method (PUT) and Headers, without
	// other credentials, until ExpiresAt.
	UploadURL string            `json:"uploadUrl"`
	Method    string            `json:"method"`
	Headers   map[string]string `json:"headers,omitempty"`
	ExpiresAt string            `json:"expiresAt"`
}

// Validate checks files/createUpload params; maxSize bounds the size.
func (p *FileUploadParams) Validate(maxSize int64) error {
	switch {
	case p.Size <= 0:
		return InvalidParams("params.size", "must be the file's length in bytes, above 0, got %d", p.Size)
	case p.Size > maxSize:
		return InvalidParams("params.size", "%d bytes exceeds the upload limit of %d bytes (A2A_FILES_MAX_UPLOAD_BYTES)", p.Size, maxSize)
	}
	if b, err := hex.DecodeString(p.SHA256); err != nil || len(b) != 32 {
		return InvalidParams("params.sha256", "must be the content's SHA-256 as 64 hex digits (what sha256sum prints), got %q", p.SHA256)
	}
	if len(p.Name) > 255 || strings.ContainsAny(p.Name, "\x00\r\n") {
		return InvalidParams("params.name", "must be at most 255 bytes, without control characters")
	}
	if len(p.MediaType) > 255 || strings.ContainsAny(p.MediaType, "\x00\r\n") || (p.MediaType != "" && !strings.Contains(p.MediaType, "/")) {
		return InvalidParams("params.mediaType", "must be a media type such as application/pdf, got %q", p.MediaType)
	}
	return nil
}
