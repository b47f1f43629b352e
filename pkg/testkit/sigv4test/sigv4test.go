// Package sigv4test checks Signature Version 4 signatures of requests a
// test server received: the AWS SDK's signer, given the same credentials,
// time and signed headers, must compute the signature the request carries.
package sigv4test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scope is the credential scope of a signed request's Authorization
// header without the access key: date/region/service/aws4_request.
func Scope(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	i, j := strings.Index(auth, "/"), strings.Index(auth, ",")
	if i < 0 || j < i {
		return ""
	}
	return auth[i+1 : j]
}

// Verify asserts that r, received with body b, is validly signed with
// creds. For S3 (s3 true) the path is signed as sent and the payload hash
// is the X-Amz-Content-Sha256 header's.
func Verify(t *testing.T, r *http.Request, b []byte, creds aws.Credentials, s3 bool) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	i := strings.Index(auth, "SignedHeaders=")
	require.Positive(t, i, "the request is signed: %q", auth)
	signed := strings.Split(auth[i+len("SignedHeaders="):strings.Index(auth[i:], ",")+i], ";")
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	require.NoError(t, err)
	u := "http://" + r.Host + r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		u += "?" + r.URL.RawQuery
	}
	req, err := http.NewRequest(r.Method, u, bytes.NewReader(b))
	require.NoError(t, err)
	req.URL.RawPath = r.URL.EscapedPath()
	req.ContentLength = r.ContentLength
	for _, h := range signed {
		if h != "host" && h != "content-length" {
			req.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:])
	if s3 {
		hash = r.Header.Get("X-Amz-Content-Sha256")
	}
	scope := strings.Split(Scope(r), "/")
	require.Len(t, scope, 4, "credential scope")
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = s3 })
	require.NoError(t, signer.SignHTTP(context.Background(), creds, req, hash, scope[2], scope[1], when))
	assert.Equal(t, req.Header.Get("Authorization"), auth, "the request's signature is valid")
}
