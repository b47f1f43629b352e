// Package s3store keeps objects in an S3 bucket through S3's REST API over
// plain HTTP (pkg/internal/awscall): PutObject, GetObject, HeadObject, DeleteObject,
// and presigned GET and PUT URLs. It stands in for the SDK's S3 client,
// which would add megabytes to every function that keeps files (the
// functions must stay under 10 MB); a test holds its requests and URLs to
// the SDK client's and presigner's.
//
// Requests go to the bucket's virtual-hosted endpoint
// (https://<bucket>.s3.<region>.amazonaws.com/<key>), or path-style
// (<endpoint>/<bucket>/<key>) with a configured endpoint (a local stand-in
// such as moto, whose one host serves every bucket) or a bucket whose name
// has a dot (which TLS cannot match to S3's wildcard certificate).
//
// Every object is stored with its SHA-256 (x-amz-checksum-sha256), which S3
// checks against the content and reports on HEAD and GET.
package s3store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/awscall"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
)

// Options configure a Store (see awscall.Options); Endpoint, when set,
// makes requests path-style.
type Options = awscall.Options

// Store is an S3 bucket. It is safe for concurrent use.
type Store struct {
	api    *awscall.Client
	bucket string
	// base is the URL of the bucket: its objects are base + "/" + key.
	base string
}

var _ objectstore.Store = (*Store)(nil)

// service is S3's API; "S3" is the SDK's service id.
var service = awscall.Service{SigningName: "s3", EndpointPrefix: "s3", ID: "S3"}

// New returns the store of bucket with cfg's region, credentials and
// endpoint.
func New(cfg aws.Config, bucket string, o Options) (*Store, error) {
	if bucket == "" {
		return nil, errors.New("s3store: a bucket is required")
	}
	o.DisableURIPathEscaping = true // S3 signs the path as sent
	if o.HTTPClient == nil {
		// Objects are up to the upload limit (100 MB by default): the
		// timeout bounds a stalled call, not a transfer.
		o.HTTPClient = &http.Client{Timeout: 5 * time.Minute}
	}
	api, err := awscall.New(cfg, service, o)
	if err != nil {
		return nil, err
	}
	s := &Store{api: api, bucket: bucket}
	if api.CustomEndpoint() || strings.Contains(bucket, ".") {
		s.base = api.Endpoint() + "/" + bucket
	} else {
		s.base = "https://" + bucket + ".s3." + api.Region() + "." + awscall.DNSSuffix(api.Region())
	}
	return s, nil
}

// url is the URL of key for op: with the x-id parameter the SDK adds to
// name the operation (all but HeadObject).
func (s *Store) url(key, op string) (string, error) {
	if !objectstore.ValidKey(key) {
		return "", fmt.Errorf("s3store: %q is not a valid key", key)
	}
	u := s.base + "/" + key // a valid key needs no escaping
	if op != "HeadObject" {
		u += "?x-id=" + op
	}
	return u, nil
}

// Put implements objectstore.Store: S3 checks the content against the
// payload hash of the signature and its SHA-256 checksum.
func (s *Store) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, o objectstore.PutOptions) error {
	u, err := s.url(key, "PutObject")
	if err != nil {
		return err
	}
	h, err := putHeader(o)
	if err != nil {
		return err
	}
	hash := awscall.UnsignedPayload
	if o.SHA256 != "" {
		hash = o.SHA256
		// moto keeps the checksum only when it is told the algorithm (S3
		// needs no more than the checksum).
		h.Set("X-Amz-Sdk-Checksum-Algorithm", "SHA256")
	}
	h.Set("X-Amz-Content-Sha256", hash)
	resp, err := s.api.Do(ctx, awscall.Request{Operation: "PutObject", Method: http.MethodPut, URL: u, Header: h, Body: body, ContentLength: size, PayloadHash: hash})
	if err != nil {
		return fmt.Errorf("s3store: put %s: %w", key, err)
	}
	b := awscall.ReadBody(resp)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("s3store: put %s: %w", key, refusal(resp, b))
	}
	return nil
}

// putHeader is the content type, checksum and metadata of a PUT.
func putHeader(o objectstore.PutOptions) (http.Header, error) {
	h := http.Header{}
	if o.ContentType != "" {
		h.Set("Content-Type", o.ContentType)
	}
	if o.SHA256 != "" {
		sum, err := hex.DecodeString(o.SHA256)
		if err != nil || len(sum) != 32 {
			return nil, fmt.Errorf("s3store: %q is not a hex SHA-256", o.SHA256)
		}
		h.Set("X-Amz-Checksum-Sha256", base64.StdEncoding.EncodeToString(sum))
	}
	for k, v := range o.Metadata {
		if !objectstore.ValidMetadataKey(k) {
			return nil, fmt.Errorf("s3store: %q is not a valid metadata key", k)
		}
		h.Set("X-Amz-Meta-"+k, v)
	}
	return h, nil
}

// Get implements objectstore.Store.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, objectstore.Info, error) {
	resp, err := s.read(ctx, "GetObject", http.MethodGet, key)
	if err != nil {
		return nil, objectstore.Info{}, err
	}
	return resp.Body, info(resp), nil
}

// Head implements objectstore.Store.
func (s *Store) Head(ctx context.Context, key string) (objectstore.Info, error) {
	resp, err := s.read(ctx, "HeadObject", http.MethodHead, key)
	if err != nil {
		return objectstore.Info{}, err
	}
	resp.Body.Close()
	return info(resp), nil
}

// read makes a GET or HEAD of key that reports its checksum, and returns
// the successful answer.
func (s *Store) read(ctx context.Context, op, method, key string) (*http.Response, error) {
	u, err := s.url(key, op)
	if err != nil {
		return nil, err
	}
	h := http.Header{"X-Amz-Content-Sha256": {awscall.EmptyPayloadHash}, "X-Amz-Checksum-Mode": {"ENABLED"}}
	resp, err := s.api.Do(ctx, awscall.Request{Operation: op, Method: method, URL: u, Header: h, PayloadHash: awscall.EmptyPayloadHash})
	if err != nil {
		return nil, fmt.Errorf("s3store: %s %s: %w", strings.ToLower(method), key, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	b := awscall.ReadBody(resp)
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("s3store: %s: %w", key, objectstore.ErrNotFound)
	}
	return nil, fmt.Errorf("s3store: %s %s: %w", strings.ToLower(method), key, refusal(resp, b))
}

// info reads an object's Info from the headers of a GET or HEAD.
func info(resp *http.Response) objectstore.Info {
	in := objectstore.Info{Size: resp.ContentLength, ContentType: resp.Header.Get("Content-Type")}
	if in.Size < 0 {
		in.Size, _ = strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64)
	}
	// A whole-object checksum: a multipart upload's is "<sum>-<parts>".
	if sum, err := base64.StdEncoding.DecodeString(resp.Header.Get("X-Amz-Checksum-Sha256")); err == nil && len(sum) == 32 {
		in.SHA256 = hex.EncodeToString(sum)
	}
	for k, v := range resp.Header {
		if m, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-meta-"); ok && len(v) > 0 {
			if in.Metadata == nil {
				in.Metadata = map[string]string{}
			}
			in.Metadata[m] = v[0]
		}
	}
	return in
}

// Delete implements objectstore.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	u, err := s.url(key, "DeleteObject")
	if err != nil {
		return err
	}
	h := http.Header{"X-Amz-Content-Sha256": {awscall.EmptyPayloadHash}}
	resp, err := s.api.Do(ctx, awscall.Request{Operation: "DeleteObject", Method: http.MethodDelete, URL: u, Header: h, PayloadHash: awscall.EmptyPayloadHash})
	if err != nil {
		return fmt.Errorf("s3store: delete %s: %w", key, err)
	}
	b := awscall.ReadBody(resp)
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusNotFound {
		return fmt.Errorf("s3store: delete %s: %w", key, refusal(resp, b))
	}
	return nil
}

// PresignGet implements objectstore.Store: S3 answers an expired URL 403
// AccessDenied, "Request has expired". The URL lasts at most as long as
// the credentials that signed it (a Lambda role's: hours).
func (s *Store) PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error) {
	u, err := s.url(key, "GetObject")
	if err != nil {
		return "", err
	}
	signed, _, err := s.api.Presign(ctx, http.MethodGet, u, nil, 0, ttl)
	if err != nil {
		return "", fmt.Errorf("s3store: presign get %s: %w", key, err)
	}
	return signed, nil
}

// PresignPut implements objectstore.Store: the signature covers the
// content's length, type, SHA-256 checksum and metadata, so S3 refuses
// another length or any other header, and checks the content against the
// checksum.
func (s *Store) PresignPut(ctx context.Context, key string, size int64, o objectstore.PutOptions, ttl time.Duration) (string, http.Header, error) {
	u, err := s.url(key, "PutObject")
	if err != nil {
		return "", nil, err
	}
	if o.SHA256 == "" || size <= 0 {
		return "", nil, errors.New("s3store: a presigned PUT needs the content's size and SHA-256")
	}
	h, err := putHeader(o)
	if err != nil {
		return "", nil, err
	}
	signed, header, err := s.api.Presign(ctx, http.MethodPut, u, h, size, ttl)
	if err != nil {
		return "", nil, fmt.Errorf("s3store: presign put %s: %w", key, err)
	}
	delete(header, "Content-Length") // every client sends it
	return signed, header, nil
}

// CreateBucket creates the store's bucket in its region, if it does not
// exist (the local server's setup; the stack creates the functions').
func (s *Store) CreateBucket(ctx context.Context) error {
	var body []byte
	if r := s.api.Region(); r != "us-east-1" {
		body = []byte(`<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>` + r + `</LocationConstraint></CreateBucketConfiguration>`)
	}
	sum := awscall.PayloadHash(body)
	resp, err := s.api.Do(ctx, awscall.Request{Operation: "CreateBucket", Method: http.MethodPut, URL: s.base, Header: http.Header{"X-Amz-Content-Sha256": {sum}},
		Body: bytes.NewReader(body), ContentLength: int64(len(body)), PayloadHash: sum})
	if err != nil {
		return fmt.Errorf("s3store: create bucket %s: %w", s.bucket, err)
	}
	b := awscall.ReadBody(resp)
	if resp.StatusCode/100 == 2 {
		return nil
	}
	if e := refusal(resp, b); e.Code != "BucketAlreadyOwnedByYou" {
		return fmt.Errorf("s3store: create bucket %s: %w", s.bucket, e)
	}
	return nil
}

// refusal is S3's error: the Code and Message of its XML body.
func refusal(resp *http.Response, body []byte) *awscall.Error {
	return awscall.NewError(resp, xmlText(body, "Code"), xmlText(body, "Message"), body)
}

// xmlText is the text of the first <tag> element of an S3 error body (S3's
// error codes and messages need no unescaping to be read).
func xmlText(body []byte, tag string) string {
	s := string(body)
	i := strings.Index(s, "<"+tag+">")
	if i < 0 {
		return ""
	}
	s = s[i+len(tag)+2:]
	if j := strings.Index(s, "</"+tag+">"); j >= 0 {
		return s[:j]
	}
	return ""
}
