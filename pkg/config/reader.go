package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// reader reads settings through getenv, collecting every bad value's error
// (each naming its variable) so that Load reports them all at once.
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

// seconds reads a duration in whole seconds, from lo to hi.
func (r *reader) seconds(name string, def time.Duration, lo, hi int) time.Duration {
	return time.Duration(r.intRange(name, int(def/time.Second), lo, hi)) * time.Second
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

func validTableName(name string) bool {
	if len(name) < 3 || len(name) > 255 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// absoluteURL reads an optional absolute http(s) URL.
func (r *reader) absoluteURL(name string) string {
	v := strings.TrimSpace(r.getenv(name))
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail(name, v, "must be an absolute http(s) URL")
		return ""
	}
	return v
}
