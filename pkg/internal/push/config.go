package push

import (
	"errors"
	"fmt"
	"strings"

	"github.com/a2a-lambda/a2a-lambda/pkg/a2a"
	"github.com/a2a-lambda/a2a-lambda/pkg/internal/push/egress"
)

// Limits on the secrets of a push config.
const (
	// MaxTokenLength bounds PushNotificationConfig.Token.
	MaxTokenLength = 4096
	// MaxCredentialsLength bounds Authentication.Credentials.
	MaxCredentialsLength = 4096
	// MaxSchemes bounds the number of Authentication.Schemes.
	MaxSchemes = 8
	// maxSchemeLength bounds one scheme name.
	maxSchemeLength = 64
)

// ErrInvalidConfig is wrapped by CheckConfig's errors about the token or the
// authentication (the URL's errors wrap egress.ErrRefused).
var ErrInvalidConfig = errors.New("invalid push notification config")

// CheckConfig applies the registration rules to a push config: the URL
// must pass the egress policy p; the token and credentials must fit their
// limits and be valid HTTP header values; every authentication scheme must
// be an HTTP token ("Bearer", "Basic", ...). It returns nil, an error
// wrapping egress.ErrRefused for the URL, or one wrapping ErrInvalidConfig.
// Messages say what is wrong without repeating any secret, so the service
// can return them to the client (as -32602).
func CheckConfig(p egress.Policy, cfg a2a.PushNotificationConfig) error {
	if _, err := p.CheckURL(cfg.URL); err != nil {
		return err
	}
	return checkSecrets(cfg)
}

// checkSecrets applies CheckConfig's rules to the token and authentication.
func checkSecrets(cfg a2a.PushNotificationConfig) error {
	if len(cfg.Token) > MaxTokenLength {
		return fmt.Errorf("%w: token is longer than %d bytes", ErrInvalidConfig, MaxTokenLength)
	}
	if !validHeaderValue(cfg.Token) {
		return fmt.Errorf("%w: token contains characters not allowed in an HTTP header", ErrInvalidConfig)
	}
	auth := cfg.Authentication
	if auth == nil {
		return nil
	}
	if len(auth.Schemes) > MaxSchemes {
		return fmt.Errorf("%w: authentication has more than %d schemes", ErrInvalidConfig, MaxSchemes)
	}
	for _, s := range auth.Schemes {
		if !isToken(s) || len(s) > maxSchemeLength {
			return fmt.Errorf("%w: authentication scheme %q is not an HTTP authentication scheme name", ErrInvalidConfig, truncate(s, maxSchemeLength))
		}
	}
	if auth.Credentials != "" && len(auth.Schemes) == 0 {
		return fmt.Errorf("%w: authentication credentials need a scheme", ErrInvalidConfig)
	}
	if len(auth.Credentials) > MaxCredentialsLength {
		return fmt.Errorf("%w: authentication credentials are longer than %d bytes", ErrInvalidConfig, MaxCredentialsLength)
	}
	if !validHeaderValue(auth.Credentials) {
		return fmt.Errorf("%w: authentication credentials contain characters not allowed in an HTTP header", ErrInvalidConfig)
	}
	return nil
}

// authorization decides the Authorization header of a notification: with
// credentials, "<first scheme> <credentials>"; without credentials but with
// a Bearer scheme, the signed JWT as a bearer token (signatureInAuth). In
// every other case the header is empty and the JWT goes in HeaderSignature.
func authorization(auth *a2a.PushAuthenticationInfo) (scheme, credentials string, signatureInAuth bool) {
	if auth == nil || len(auth.Schemes) == 0 {
		return "", "", false
	}
	if auth.Credentials != "" {
		return auth.Schemes[0], auth.Credentials, false
	}
	for _, s := range auth.Schemes {
		if strings.EqualFold(s, "Bearer") {
			return "Bearer", "", true
		}
	}
	return "", "", false
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether s can be sent as a header value: visible
// ASCII, spaces and tabs, no leading or trailing whitespace.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return strings.TrimSpace(s) == s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
