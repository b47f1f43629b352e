package egress

import (
	"net"
	"net/netip"
	"strings"
	"testing"
)

// FuzzCheckURL checks the invariants of an accepted URL: whatever the
// input, CheckURL never panics, and a URL it accepts under the production
// policy is https, has no user information, fits the limits, and has a host
// that no parser here reads as a refused address.
func FuzzCheckURL(f *testing.F) {
	for _, tc := range urlCases() {
		f.Add(tc.url)
	}
	for _, tc := range addrCases() {
		f.Add("https://" + tc.addr + "/")
		f.Add("https://[" + tc.addr + "]/")
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, p := range []Policy{{}, {AllowInsecure: true}} {
			u, err := p.CheckURL(raw)
			if err != nil {
				if u != nil {
					t.Fatalf("refused %q but returned a URL", raw)
				}
				continue
			}
			if len(raw) > MaxURLLength || u.User != nil {
				t.Fatalf("accepted %q", raw)
			}
			if u.Scheme != "https" && !(p.AllowInsecure && u.Scheme == "http") {
				t.Fatalf("accepted scheme %q", u.Scheme)
			}
			host := u.Hostname()
			if host == "" || len(host) > MaxHostLength && !strings.Contains(host, ":") {
				t.Fatalf("accepted host %q", host)
			}
			// Every reading of the host as an address must be allowed.
			if ip, err := netip.ParseAddr(host); err == nil {
				if p.CheckAddr(ip) != nil {
					t.Fatalf("accepted %q whose host is refused address %s", raw, ip)
				}
			}
			if ip := net.ParseIP(host); ip != nil {
				addr, _ := netip.AddrFromSlice(ip)
				if p.CheckAddr(addr) != nil {
					t.Fatalf("accepted %q whose host is refused address %s", raw, addr)
				}
			}
			if strings.Contains(host, ":") {
				continue // IPv6, checked above
			}
			if ip, numeric, err := parseIPv4Literal(host); numeric && (err != nil || p.CheckAddr(ip) != nil) {
				t.Fatalf("accepted %q whose host reads as IPv4 %s (%v)", raw, ip, err)
			}
		}
	})
}
