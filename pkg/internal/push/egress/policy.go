// Package egress decides which webhook URLs and network addresses the server
// may reach, and provides the HTTP client that enforces that decision on
// every connection it opens.
//
// Two checks work together. CheckURL runs when a webhook is registered (and
// again before each delivery): https only, no user information, sane
// lengths, and a host that is not a literal address in a refused range, in
// any of the spellings resolvers accept (decimal, octal, hexadecimal and
// short IPv4 forms, IPv6 with embedded IPv4). The dial guard (Control, used
// by NewClient) runs after DNS resolution on the address actually dialled,
// so a name that resolves, or later re-resolves, to a refused address cannot
// get through either.
package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// Limits on webhook URLs.
const (
	// MaxURLLength is the longest webhook URL accepted, in bytes.
	MaxURLLength = 2048
	// MaxHostLength is the longest host name accepted (the DNS limit).
	MaxHostLength = 253
	// maxLabelLength is the DNS limit on one label of a host name.
	maxLabelLength = 63
)

// ErrRefused is wrapped by every refusal of a URL or an address, so callers
// can tell a policy refusal (permanent, the client's fault) from other
// failures with errors.Is.
var ErrRefused = errors.New("refused by the webhook address policy")

// RefusedError says why a URL or an address was refused. Its message names
// the reason and, for addresses, the address; it never contains the URL's
// path, query or user information, which may be secret.
type RefusedError struct {
	// Reason is a short human-readable explanation.
	Reason string
}

// Error returns the reason.
func (e *RefusedError) Error() string { return "webhook URL refused: " + e.Reason }

// Unwrap makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// Policy is the webhook egress policy. The zero value is the production
// policy: https only, every non-public address refused.
type Policy struct {
	// AllowInsecure is the local-development switch
	// (A2A_PUSH_ALLOW_INSECURE=true): it allows plain http URLs and loopback
	// addresses (127.0.0.0/8, ::1, localhost) and nothing else. Private,
	// link-local, CGNAT and metadata addresses stay refused. Never set it in
	// Lambda, where loopback reaches the Lambda Runtime API.
	AllowInsecure bool
}

// CheckURL parses a webhook URL and applies the registration rules: an
// absolute http(s) URL (https unless AllowInsecure), ASCII only, at most
// MaxURLLength bytes, no user information, a valid port, and a host that is
// a well-formed name of at most MaxHostLength bytes or a literal address the
// policy allows. It returns the parsed URL, or a *RefusedError (wrapping
// ErrRefused) whose message says why.
//
// A host name is not resolved here: names are checked at dial time by the
// client from NewClient.
func (p Policy) CheckURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, refuse("URL is empty")
	}
	if len(raw) > MaxURLLength {
		return nil, refuse("URL is longer than %d bytes", MaxURLLength)
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c <= ' ' || c == 0x7f:
			return nil, refuse("URL contains a space or a control character")
		case c >= 0x80:
			return nil, refuse("URL contains non-ASCII characters (percent-encode them; use punycode for host names)")
		case c == '\\':
			return nil, refuse("URL contains a backslash")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse("URL does not parse")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !p.AllowInsecure {
			return nil, refuse("scheme must be https")
		}
	case "":
		return nil, refuse("URL must be absolute (https://host/path)")
	default:
		return nil, refuse("scheme %q is not allowed, use https", u.Scheme)
	}
	if u.Opaque != "" {
		return nil, refuse("URL must have the form https://host/path")
	}
	if u.User != nil {
		return nil, refuse("URL must not contain user information (user:password@); use the authentication field")
	}
	if port := u.Port(); port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, refuse("port must be between 1 and 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, refuse("port is empty")
	}
	if err := p.checkHost(u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// checkHost applies the host rules to a host as url.URL.Hostname returns it
// (brackets removed, percent-encoding decoded).
func (p Policy) checkHost(host string) error {
	if host == "" {
		return refuse("host is empty")
	}
	if strings.Contains(host, ":") {
		// Only IPv6 literals contain a colon.
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() {
			return refuse("host is not a valid IPv6 address")
		}
		if ip.Zone() != "" {
			return refuse("IPv6 zone identifiers are not allowed")
		}
		return p.CheckAddr(ip)
	}
	if len(host) > MaxHostLength {
		return refuse("host is longer than %d bytes", MaxHostLength)
	}
	if ip, numeric, err := parseIPv4Literal(host); numeric {
		if err != nil {
			return refuse("host looks like an IPv4 address but is not a valid one")
		}
		if err := p.CheckAddr(ip); err != nil {
			return err
		}
		if ip.String() != host {
			// Resolvers disagree on these spellings; accept one.
			return refuse("host %s is a non-canonical IPv4 address, write it as %s", host, ip)
		}
		return nil
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "" {
		return refuse("host is empty")
	}
	for label := range strings.SplitSeq(name, ".") {
		if err := checkLabel(label); err != nil {
			return err
		}
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if p.AllowInsecure {
			return nil
		}
		return refuse("host %s is a loopback name", name)
	}
	if isMetadataName(name) {
		return refuse("host %s is a cloud metadata service name", name)
	}
	return nil
}

// checkLabel accepts one DNS label: 1 to 63 letters, digits, hyphens or
// underscores, not starting or ending with a hyphen.
func checkLabel(label string) error {
	if label == "" {
		return refuse("host has an empty label")
	}
	if len(label) > maxLabelLength {
		return refuse("host has a label longer than %d bytes", maxLabelLength)
	}
	if label[0] == '-' || label[len(label)-1] == '-' {
		return refuse("host label starts or ends with a hyphen")
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return refuse("host contains the character %q", c)
		}
	}
	return nil
}

// isMetadataName reports well-known names of cloud metadata services. The
// dial guard refuses their addresses anyway; refusing the names gives a
// clearer message at registration.
func isMetadataName(name string) bool {
	switch name {
	case "metadata", "metadata.google.internal", "metadata.goog",
		"instance-data", "instance-data.ec2.internal":
		return true
	}
	return false
}

// CheckAddr applies the address rules to ip: loopback addresses are allowed
// only with AllowInsecure; private (RFC 1918), CGNAT, link-local (including
// the metadata and container-runtime endpoints in 169.254.0.0/16),
// benchmarking, documentation, "this network", multicast, broadcast,
// reserved, IPv6 unspecified, unique-local, link-local, site-local,
// multicast and non-global addresses are always refused, as are
// IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms of refused IPv4
// addresses. It returns nil or a *RefusedError.
func (p Policy) CheckAddr(ip netip.Addr) error {
	v := classify(ip)
	if v.reason == "" || v.loopback && p.AllowInsecure {
		return nil
	}
	return refuse("%s is a %s", ip.WithZone(""), v.reason)
}

// Control is a net.Dialer Control function: it runs for every connection
// after name resolution, with the address about to be dialled, and refuses
// anything but TCP to an address CheckAddr allows. Its errors wrap
// ErrRefused and surface through the dial error.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp4", "tcp6", "tcp":
	default:
		return refuse("network %q is not allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refuse("dial address %q is not an IP address and port", address)
	}
	return p.CheckAddr(ap.Addr())
}
