package egress

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// errBadIPv4 is returned by parseIPv4Literal for a host that is meant as an
// IPv4 address but does not parse as one.
var errBadIPv4 = errors.New("invalid IPv4 literal")

// parseIPv4Literal decides whether host is meant as an IPv4 address and, if
// so, parses it the way inet_aton(3) and the WHATWG URL standard do, since
// those are the spellings a resolver or an HTTP library elsewhere might
// accept: one to four dot-separated parts, each decimal, octal (leading 0)
// or hexadecimal (leading 0x); the last part fills the remaining bytes
// ("127.1" is 127.0.0.1, "2130706433" is 127.0.0.1, "0x7f.1" is 127.0.0.1).
// A single trailing dot is ignored.
//
// A host is meant as an IPv4 address when its last part is a number
// (decimal digits, or 0x followed by hex digits); numeric reports that. For
// such a host that does not parse (too many parts, a part out of range, a
// malformed number), err is errBadIPv4.
func parseIPv4Literal(host string) (ip netip.Addr, numeric bool, err error) {
	host = strings.TrimSuffix(host, ".")
	parts := strings.Split(host, ".")
	if !isNumber(parts[len(parts)-1]) {
		return netip.Addr{}, false, nil
	}
	if len(parts) > 4 {
		return netip.Addr{}, true, errBadIPv4
	}
	var value uint64
	for i, part := range parts {
		n, ok := parseIPv4Part(part)
		if !ok {
			return netip.Addr{}, true, errBadIPv4
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, true, errBadIPv4
			}
			value |= n << (8 * (3 - i))
			continue
		}
		// The last part fills the remaining 4-i bytes.
		if n >= 1<<(8*(4-i)) {
			return netip.Addr{}, true, errBadIPv4
		}
		value |= n
	}
	return netip.AddrFrom4([4]byte{byte(value >> 24), byte(value >> 16), byte(value >> 8), byte(value)}), true, nil
}

// isNumber reports whether s is all decimal digits, or 0x/0X followed by
// hexadecimal digits (possibly none), as in the WHATWG "ends in a number"
// rule.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		for i := 2; i < len(s); i++ {
			if !isHexDigit(s[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseIPv4Part parses one part: 0x-prefixed hexadecimal ("0x" alone is 0),
// 0-prefixed octal, or decimal. Values above 2^32-1 fail.
func parseIPv4Part(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	// ParseUint accepts underscores only with base 0, and signs never.
	n, err := strconv.ParseUint(s, base, 32)
	if err != nil {
		return 0, false
	}
	return n, true
}
