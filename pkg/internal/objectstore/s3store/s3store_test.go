package s3store_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/objectstoretest"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/objectstore/s3store"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/awstest"
	"github.com/a2a-lambda/a2a-lambda/pkg/testkit/sigv4test"
)

func TestMain(m *testing.M) { os.Exit(awstest.Main(m)) }

// Bucket returns a new bucket in moto and its store.
func bucket(t *testing.T) *s3store.Store {
	name := strings.ToLower(strings.NewReplacer("_", "-", "/", "-", ".", "-").Replace(awstest.UniqueName(t, "files")))
	if len(name) > 63 {
		name = name[len(name)-63:]
	}
	name = strings.Trim(name, "-")
	s, err := s3store.New(awstest.Config(t), name, s3store.Options{})
	require.NoError(t, err)
	require.NoError(t, s.CreateBucket(context.Background()))
	require.NoError(t, s.CreateBucket(context.Background()), "creating it again is fine")
	return s
}

// On moto's S3, which checks no presigned URL (S3 checks their signature,
// expiry, length and checksum: see TestWireMatchesTheSDK for the requests).
func TestContract(t *testing.T) {
	objectstoretest.Run(t, func(t *testing.T) objectstore.Store { return bucket(t) }, objectstoretest.Options{})
}

var creds = aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", SessionToken: "session"}

// seen is what the fake endpoint saw of one request.
type seen struct {
	method, path, query, scope string
	signed                     []string
	header                     map[string]string
}

// compared are the headers whose values the two clients must agree on.
var compared = []string{"Content-Type", "Content-Length", "X-Amz-Content-Sha256", "X-Amz-Checksum-Sha256", "X-Amz-Checksum-Mode", "X-Amz-Meta-Owner", "X-Amz-Security-Token"}

// The AWS SDK's own S3 client and presigner are the judges of the wire
// format (only tests link them): both make the same calls of a fake,
// path-style endpoint, whose requests must agree (method, path, query,
// the headers of compared, credential scope) and be validly signed. Both
// read the same answers the same way.
func TestWireMatchesTheSDK(t *testing.T) {
	var got []seen
	var answer struct {
		status int
		header map[string]string
		body   string
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sigv4test.Verify(t, r, b, creds, true)
		s := seen{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.RawQuery, scope: sigv4test.Scope(r)[9:], header: map[string]string{}}
		auth := r.Header.Get("Authorization")
		i := strings.Index(auth, "SignedHeaders=") + len("SignedHeaders=")
		for _, h := range strings.Split(auth[i:i+strings.Index(auth[i:], ",")], ";") {
			if !strings.HasPrefix(h, "amz-sdk-") && h != "x-amz-user-agent" && h != "accept-encoding" && h != "x-amz-date" {
				s.signed = append(s.signed, h)
			}
		}
		for _, h := range compared {
			if v := r.Header.Get(h); v != "" {
				s.header[h] = v
			}
		}
		got = append(got, s)
		for k, v := range answer.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(answer.status)
		io.WriteString(w, answer.body)
	}))
	defer hs.Close()
	provider := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	sdk := s3.New(s3.Options{Region: "eu-west-1", BaseEndpoint: aws.String(hs.URL), UsePathStyle: true, Retryer: aws.NopRetryer{}, Credentials: provider})
	ours, err := s3store.New(aws.Config{Region: "eu-west-1", Credentials: provider}, "my-bucket", s3store.Options{Endpoint: hs.URL, MaxAttempts: 1})
	require.NoError(t, err)
	ctx := context.Background()
	content := []byte("%PDF-1.7 a small report")
	sum := objectstoretest.Hash(content)
	raw, _ := hex.DecodeString(sum)
	b64 := base64.StdEncoding.EncodeToString(raw)
	key := "files/0123abcd/f-1.v2"

	both := func(t *testing.T, sdkCall, ourCall func() error) {
		t.Helper()
		got = nil
		require.NoError(t, sdkCall(), "the SDK")
		require.NoError(t, ourCall(), "ours")
		require.Len(t, got, 2)
		assert.Equal(t, got[0], got[1], "the requests")
		assert.Equal(t, "eu-west-1/s3/aws4_request", got[1].scope)
	}
	answer.status = http.StatusOK
	t.Run("PutObject", func(t *testing.T) {
		both(t, func() error {
			_, err := sdk.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key), Body: bytes.NewReader(content),
				ContentLength: aws.Int64(int64(len(content))), ContentType: aws.String("application/pdf"), ChecksumSHA256: aws.String(b64),
				ChecksumAlgorithm: types.ChecksumAlgorithmSha256, Metadata: map[string]string{"owner": "c0ffee"}})
			return err
		}, func() error {
			return ours.Put(ctx, key, bytes.NewReader(content), int64(len(content)), objectstore.PutOptions{ContentType: "application/pdf", SHA256: sum, Metadata: map[string]string{"owner": "c0ffee"}})
		})
		assert.Equal(t, "/my-bucket/"+key, got[1].path)
		assert.Equal(t, sum, got[1].header["X-Amz-Content-Sha256"], "the payload is signed")
	})
	answer.header = map[string]string{"Content-Type": "application/pdf", "X-Amz-Checksum-Sha256": b64, "X-Amz-Meta-Owner": "c0ffee", "Content-Length": strconv.Itoa(len(content))}
	t.Run("HeadObject", func(t *testing.T) {
		var theirs *s3.HeadObjectOutput
		var in objectstore.Info
		both(t, func() (err error) {
			theirs, err = sdk.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
			return err
		}, func() (err error) {
			in, err = ours.Head(ctx, key)
			return err
		})
		assert.Equal(t, aws.ToInt64(theirs.ContentLength), in.Size)
		assert.Equal(t, aws.ToString(theirs.ContentType), in.ContentType)
		assert.Equal(t, theirs.Metadata, in.Metadata)
		assert.Equal(t, aws.ToString(theirs.ChecksumSHA256), b64)
		assert.Equal(t, sum, in.SHA256)
	})
	t.Run("GetObject", func(t *testing.T) {
		answer.body = string(content)
		defer func() { answer.body = "" }()
		var theirs, mine []byte
		both(t, func() error {
			out, err := sdk.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
			if err == nil {
				theirs, err = io.ReadAll(out.Body)
				out.Body.Close()
			}
			return err
		}, func() error {
			rc, _, err := ours.Get(ctx, key)
			if err == nil {
				mine, err = io.ReadAll(rc)
				rc.Close()
			}
			return err
		})
		assert.Equal(t, theirs, mine)
	})
	answer.header = nil
	answer.status = http.StatusNoContent
	t.Run("DeleteObject", func(t *testing.T) {
		both(t, func() error {
			_, err := sdk.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key)})
			return err
		}, func() error { return ours.Delete(ctx, key) })
	})
	t.Run("not found", func(t *testing.T) {
		answer.status = http.StatusNotFound
		answer.body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`
		defer func() { answer.body = "" }()
		_, err := ours.Head(ctx, key)
		assert.ErrorIs(t, err, objectstore.ErrNotFound)
		_, _, err = ours.Get(ctx, key)
		assert.ErrorIs(t, err, objectstore.ErrNotFound)
		var nsk *types.NoSuchKey
		_, err = sdk.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key)})
		assert.ErrorAs(t, err, &nsk, "the SDK agrees")
	})
	t.Run("refused", func(t *testing.T) {
		answer.status = http.StatusBadRequest
		answer.body = `<Error><Code>BadDigest</Code><Message>The sha256 you specified did not match the calculated checksum.</Message></Error>`
		defer func() { answer.body = "" }()
		err := ours.Put(ctx, key, bytes.NewReader(content), int64(len(content)), objectstore.PutOptions{SHA256: sum})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "BadDigest")
		assert.Contains(t, err.Error(), "did not match")
	})

	presigner := s3.NewPresignClient(sdk)
	t.Run("presigned GET", func(t *testing.T) {
		theirs, err := presigner.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key)}, s3.WithPresignExpires(15*time.Minute))
		require.NoError(t, err)
		mine, err := ours.PresignGet(ctx, key, 15*time.Minute)
		require.NoError(t, err)
		assertSamePresigned(t, theirs.URL, theirs.SignedHeader, mine, nil)
	})
	t.Run("presigned PUT", func(t *testing.T) {
		theirs, err := presigner.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("my-bucket"), Key: aws.String(key),
			ContentLength: aws.Int64(int64(len(content))), ContentType: aws.String("application/pdf"), ChecksumSHA256: aws.String(b64),
			Metadata: map[string]string{"owner": "c0ffee"}}, s3.WithPresignExpires(15*time.Minute))
		require.NoError(t, err)
		mine, h, err := ours.PresignPut(ctx, key, int64(len(content)), objectstore.PutOptions{ContentType: "application/pdf", SHA256: sum, Metadata: map[string]string{"owner": "c0ffee"}}, 15*time.Minute)
		require.NoError(t, err)
		assertSamePresigned(t, theirs.URL, theirs.SignedHeader, mine, h)
		assert.Equal(t, b64, h.Get("X-Amz-Checksum-Sha256"), "the client sends the checksum S3 checks")
		assert.Contains(t, mine, "X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bx-amz-checksum-sha256%3Bx-amz-meta-owner", "the length is signed: S3 refuses another")
	})
}

// assertSamePresigned compares two presigned URLs: the same path and query
// parameters but the time and signature, the same headers to send (the
// SDK's list names Host and Content-Length, which every client sends), and
// both signatures valid.
func assertSamePresigned(t *testing.T, theirs string, theirHeader http.Header, mine string, myHeader http.Header) {
	t.Helper()
	tu, err := url.Parse(theirs)
	require.NoError(t, err)
	mu, err := url.Parse(mine)
	require.NoError(t, err)
	assert.Equal(t, tu.EscapedPath(), mu.EscapedPath())
	tq, mq := tu.Query(), mu.Query()
	for _, q := range []url.Values{tq, mq} {
		q.Del("X-Amz-Date")
		q.Del("X-Amz-Signature")
	}
	assert.Equal(t, tq, mq, "the query parameters")
	want := http.Header{}
	for k, v := range theirHeader {
		if k != "Host" && k != "Content-Length" {
			want[k] = v
		}
	}
	if len(want) == 0 {
		want = nil
	}
	if len(myHeader) == 0 {
		myHeader = nil
	}
	assert.Equal(t, want, myHeader, "the headers to send")
	for _, u := range []*url.URL{tu, mu} {
		verifyPresigned(t, u, theirHeader)
	}
}

// verifyPresigned signs u again, with the time it names, and compares the
// signature.
func verifyPresigned(t *testing.T, u *url.URL, header http.Header) {
	t.Helper()
	q := u.Query()
	when, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	require.NoError(t, err)
	sig := q.Get("X-Amz-Signature")
	for _, k := range []string{"X-Amz-Signature", "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Security-Token"} {
		q.Del(k)
	}
	c := *u
	c.RawQuery = q.Encode()
	req, err := http.NewRequest(http.MethodGet, c.String(), nil)
	require.NoError(t, err)
	signed := strings.Split(u.Query().Get("X-Amz-SignedHeaders"), ";")
	if slices.Contains(signed, "content-length") {
		req.Method = http.MethodPut
	}
	for k, v := range header {
		switch k {
		case "Host":
		case "Content-Length":
			n, err := strconv.ParseInt(v[0], 10, 64)
			require.NoError(t, err)
			req.ContentLength = n
		default:
			req.Header[k] = v
		}
	}
	signer := v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
	again, _, err := signer.PresignHTTP(context.Background(), creds, req, "UNSIGNED-PAYLOAD", "s3", "eu-west-1", when)
	require.NoError(t, err)
	au, err := url.Parse(again)
	require.NoError(t, err)
	assert.Equal(t, au.Query().Get("X-Amz-Signature"), sig, "a valid signature: %s", u)
}
