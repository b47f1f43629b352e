// Package config reads the server's settings from the environment. Every
// setting has a default that suits `make run`; a bad value stops start-up
// with a message that names the variable.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the server.
type Config struct {
	// Host and Port are the local server's bind address (A2A_HOST, A2A_PORT).
	Host string
	Port int
	// PublicURL is the base URL advertised by the agent card (A2A_PUBLIC_URL).
	PublicURL string
	// Tokens maps caller names to bearer tokens (A2A_BEARER_TOKEN is the
	// caller "default"; A2A_BEARER_TOKENS=name:token,...). Empty: no auth.
	Tokens map[string]string
	// MaxRequestBodyBytes bounds request bodies (A2A_MAX_REQUEST_BODY_BYTES).
	MaxRequestBodyBytes int64
	// BlockingDefault applies to message/send without configuration.blocking
	// (A2A_BLOCKING_DEFAULT).
	BlockingDefault bool
	// BlockingTimeout bounds a blocking send's wait
	// (A2A_BLOCKING_TIMEOUT_SECONDS).
	BlockingTimeout time.Duration
	// Agent names the registered agent to serve (A2A_AGENT).
	Agent string
	// LogLevel is the minimum level of the JSON logs (A2A_LOG_LEVEL).
	LogLevel slog.Level
	// InterruptTTL is how long an interrupt accepts replies
	// (A2A_INTERRUPT_REQUEST_TTL_SECONDS).
	InterruptTTL time.Duration
	// InterruptTombstoneTTL is how long, after that, a late reply is told
	// the interrupt expired rather than not found
	// (A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS).
	InterruptTombstoneTTL time.Duration
}

// Defaults.
const (
	DefaultHost                = "127.0.0.1"
	DefaultPort                = 8000
	DefaultMaxRequestBodyBytes = 1 << 20
	DefaultBlockingTimeout     = 25 * time.Second
	DefaultAgent               = "demo"
	DefaultTokenName           = "default"
	DefaultInterruptTTL        = 10800 * time.Second
	DefaultInterruptTombstone  = 600 * time.Second
)

// Load reads the configuration through getenv (os.Getenv in binaries, a map
// in tests). It reports every bad variable at once.
func Load(getenv func(string) string) (Config, error) {
	r := reader{getenv: getenv}
	c := Config{
		Host:                r.str("A2A_HOST", DefaultHost),
		Port:                r.intRange("A2A_PORT", DefaultPort, 1, 65535),
		MaxRequestBodyBytes: int64(r.intRange("A2A_MAX_REQUEST_BODY_BYTES", DefaultMaxRequestBodyBytes, 1024, 64<<20)),
		BlockingDefault:     r.boolean("A2A_BLOCKING_DEFAULT", false),
		BlockingTimeout:     time.Duration(r.intRange("A2A_BLOCKING_TIMEOUT_SECONDS", int(DefaultBlockingTimeout/time.Second), 1, 900)) * time.Second,
		Agent:               r.str("A2A_AGENT", DefaultAgent),
		LogLevel:            r.level("A2A_LOG_LEVEL", slog.LevelInfo),
		// Step Functions' task timeout is at most a year; a day of tombstone is plenty.
		InterruptTTL:          time.Duration(r.intRange("A2A_INTERRUPT_REQUEST_TTL_SECONDS", int(DefaultInterruptTTL/time.Second), 1, 365*24*3600)) * time.Second,
		InterruptTombstoneTTL: time.Duration(r.intRange("A2A_INTERRUPT_REQUEST_TOMBSTONE_TTL_SECONDS", int(DefaultInterruptTombstone/time.Second), 0, 24*3600)) * time.Second,
	}
	c.PublicURL = r.publicURL("A2A_PUBLIC_URL", "http://"+net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	c.Tokens = r.tokens()
	return c, errors.Join(r.errs...)
}

// Loopback reports whether the bind host only accepts local connections.
func (c Config) Loopback() bool {
	if c.Host == "localhost" {
		return true
	}
	ip := net.ParseIP(c.Host)
	return ip != nil && ip.IsLoopback()
}

type reader struct {
	getenv func(string) string
	errs   []error
}

func (r *reader) fail(name, value, want string) {
	r.errs = append(r.errs, fmt.Errorf("%s=%q: %s", name, value, want))
}

func (r *reader) str(name, def string) string {
	if v := strings.TrimSpace(r.getenv(name)); v != "" {
		return v
	}
	return def
}

func (r *reader) intRange(name string, def, lo, hi int) int {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		r.fail(name, v, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
		return def
	}
	return n
}

func (r *reader) boolean(name string, def bool) bool {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		r.fail(name, v, "must be true or false")
		return def
	}
	return b
}

func (r *reader) level(name string, def slog.Level) slog.Level {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(v))); err != nil {
		r.fail(name, v, "must be debug, info, warn or error")
		return def
	}
	return l
}

func (r *reader) publicURL(name, def string) string {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return def
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		r.fail(name, v, "must be an absolute http(s) URL without query or fragment")
		return def
	}
	return strings.TrimRight(v, "/")
}

// tokens reads A2A_BEARER_TOKEN and A2A_BEARER_TOKENS.
func (r *reader) tokens() map[string]string {
	tokens := map[string]string{}
	if t := strings.TrimSpace(r.getenv("A2A_BEARER_TOKEN")); t != "" {
		tokens[DefaultTokenName] = t
	}
	list := strings.TrimSpace(r.getenv("A2A_BEARER_TOKENS"))
	if list == "" {
		return tokens
	}
	seen := map[string]bool{tokens[DefaultTokenName]: true}
	for _, item := range strings.Split(list, ",") {
		name, tok, ok := strings.Cut(strings.TrimSpace(item), ":")
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case !ok || name == "" || tok == "":
			r.errs = append(r.errs, fmt.Errorf("A2A_BEARER_TOKENS: entry %q must be name:token", redact(item)))
			continue
		case seen[tok] || tokens[name] != "":
			r.errs = append(r.errs, fmt.Errorf("A2A_BEARER_TOKENS: caller %q or its token is given twice (A2A_BEARER_TOKEN is the caller %q)", name, DefaultTokenName))
			continue
		}
		seen[tok] = true
		tokens[name] = tok
	}
	return tokens
}

// redact keeps a token out of error messages.
func redact(item string) string {
	name, _, ok := strings.Cut(item, ":")
	if ok {
		return strings.TrimSpace(name) + ":***"
	}
	return "***"
}
