package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// jwk is the JSON form of one public key (RFC 7517, RFC 7518 for EC,
// RFC 8037 for Ed25519).
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y,omitempty"`
	KID string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

type jwkSet struct {
	Keys []json.RawMessage `json:"keys"`
}

// toJWK encodes a supported public key.
func toJWK(kid string, pub crypto.PublicKey) (jwk, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return jwk{}, errors.New("only EC P-256 keys are supported")
		}
		raw, err := k.Bytes() // 0x04 || X || Y
		if err != nil {
			return jwk{}, fmt.Errorf("encode EC key: %w", err)
		}
		return jwk{Kty: "EC", Crv: "P-256", X: b64(raw[1:33]), Y: b64(raw[33:]), KID: kid, Alg: AlgES256, Use: "sig"}, nil
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return jwk{}, errors.New("invalid Ed25519 key")
		}
		return jwk{Kty: "OKP", Crv: "Ed25519", X: b64(k), KID: kid, Alg: AlgEdDSA, Use: "sig"}, nil
	default:
		return jwk{}, fmt.Errorf("unsupported key type %T (want EC P-256 or Ed25519)", pub)
	}
}

// buildJWKS encodes the set's public keys and their ETag.
func (s *Set) buildJWKS() error {
	doc := struct {
		Keys []jwk `json:"keys"`
	}{}
	for _, k := range s.public {
		j, err := toJWK(k.KID, k.Key)
		if err != nil {
			return fmt.Errorf("push signing keys: key %q: %w", k.KID, err)
		}
		doc.Keys = append(doc.Keys, j)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("push signing keys: encode JWKS: %w", err)
	}
	sum := sha256.Sum256(data)
	s.jwks = data
	s.etag = `W/"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
	return nil
}

// ParseJWKS reads a JWKS document and returns its usable signature keys:
// EC P-256 keys (alg ES256) and Ed25519 keys (alg EdDSA) that have a kid.
// As RFC 7517 asks, keys of other types, keys for other uses ("use" other
// than "sig") and keys without a kid are skipped; a later key with an
// already seen kid is skipped too. It fails when the document is not a
// JWKS, or when a key of a supported type is malformed or names an alg that
// does not match its type.
func ParseJWKS(data []byte) ([]PublicKey, error) {
	var set jwkSet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("parse JWKS: %w", err)
	}
	if set.Keys == nil {
		return nil, errors.New("parse JWKS: no \"keys\" array")
	}
	var out []PublicKey
	seen := map[string]bool{}
	for i, raw := range set.Keys {
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			return nil, fmt.Errorf("parse JWKS: key %d: %w", i, err)
		}
		if j.KID == "" || seen[j.KID] || (j.Use != "" && j.Use != "sig") {
			continue
		}
		k, ok, err := fromJWK(j)
		if err != nil {
			return nil, fmt.Errorf("parse JWKS: key %q: %w", j.KID, err)
		}
		if !ok {
			continue
		}
		seen[j.KID] = true
		out = append(out, k)
	}
	return out, nil
}

// fromJWK decodes a supported key; ok is false for unsupported types.
func fromJWK(j jwk) (PublicKey, bool, error) {
	dec := base64.RawURLEncoding.DecodeString
	switch {
	case j.Kty == "EC" && j.Crv == "P-256":
		if j.Alg != "" && j.Alg != AlgES256 {
			return PublicKey{}, false, fmt.Errorf("alg %q does not match an EC P-256 key", j.Alg)
		}
		x, errX := dec(j.X)
		y, errY := dec(j.Y)
		if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
			return PublicKey{}, false, errors.New("x and y must be 32-byte base64url values")
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return PublicKey{}, false, fmt.Errorf("invalid EC point: %w", err)
		}
		return PublicKey{KID: j.KID, Alg: AlgES256, Key: pub}, true, nil
	case j.Kty == "OKP" && j.Crv == "Ed25519":
		if j.Alg != "" && j.Alg != AlgEdDSA && j.Alg != "Ed25519" {
			return PublicKey{}, false, fmt.Errorf("alg %q does not match an Ed25519 key", j.Alg)
		}
		x, err := dec(j.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return PublicKey{}, false, errors.New("x must be a 32-byte base64url value")
		}
		return PublicKey{KID: j.KID, Alg: AlgEdDSA, Key: ed25519.PublicKey(x)}, true, nil
	}
	return PublicKey{}, false, nil
}
