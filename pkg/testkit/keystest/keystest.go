// Package keystest makes push notification signing keys for tests, as
// A2A_PUSH_SIGNING_KEYS holds them.
package keystest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/require"
)

// PEM returns a new ES256 signing key (PKCS#8 EC P-256) as PEM text. A
// non-empty kid is written as the block's kid header, which keys.Parse
// takes as the key's id.
func PEM(t testing.TB, kid string) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	b := &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	if kid != "" {
		b.Headers = map[string]string{"kid": kid}
	}
	return string(pem.EncodeToMemory(b))
}
