package egress

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// urlCases returns the registration table. strict is the expected refusal
// reason fragment under the production policy ("" = allowed); insecure is
// whether the local-development policy allows the URL.
type urlCase struct {
	url      string
	strict   string
	insecure bool
}

func urlCases() []urlCase {
	return []urlCase{
		// Allowed everywhere.
		{"https://example.com/hook", "", true},
		{"https://hooks.example.com:8443/a/b?c=d#frag", "", true},
		{"https://EXAMPLE.com./hook", "", true},
		{"https://93.184.216.34/hook", "", true},
		{"https://8.8.8.8:443/", "", true},
		{"https://[2606:4700:4700::1111]/hook", "", true},
		{"https://[64:ff9b::808:808]/", "", true},  // NAT64 form of 8.8.8.8
		{"https://[::ffff:8.8.8.8]/", "", true},    // IPv4-mapped form of 8.8.8.8
		{"https://[2002:808:808::1]/", "", true},   // 6to4 form of 8.8.8.8
		{"https://my_host.example.com/", "", true}, // underscores occur in real names
		{"https://0x7f.example.com/", "", true},    // a name: the last label is not a number
		{"https://deadbeef/", "", true},            // a name, not hex: no 0x
		{"HTTPS://Example.COM/Hook", "", true},     // scheme is case-insensitive
		{"https://example.com:65535/", "", true},   // highest port
		{"https://xn--bcher-kva.example/hook", "", true},

		// Scheme, shape, characters and lengths.
		{"http://example.com/hook", "scheme must be https", true},
		{"ftp://example.com/", "scheme \"ftp\"", false},
		{"javascript:alert(1)", "scheme \"javascript\"", false},
		{"https:example.com", "form https://host/path", false},
		{"/relative/path", "absolute", false},
		{"", "empty", false},
		{"https:///path", "host is empty", false},
		{"https://user:pass@example.com/", "user information", false},
		{"https://@example.com/", "user information", false},
		{"https://127.0.0.1:443@example.com/", "user information", false},
		{"https://evil.com\\@127.0.0.1/", "backslash", false},
		{"https://exa mple.com/", "space", false},
		{"https://ex\u00e4mple.com/", "non-ASCII", false},
		{"https://example.com/\x00", "control", false},
		{"https://example.com:0/", "port", false},
		{"https://example.com:99999/", "port", false},
		{"https://example.com:/", "port is empty", false},
		{"https://-bad.example.com/", "hyphen", false},
		{"https://a..b/", "empty label", false},
		{"https://a%2Fb.example.com/", "does not parse", false}, // net/url refuses escapes in names
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), "longer than 2048", false},
		{"https://" + strings.Repeat("a.", 127) + "com/", "longer than 253", false},
		{"https://" + strings.Repeat("a", 64) + ".com/", "label longer than 63", false},

		// Loopback: allowed only by the local-development switch.
		{"https://127.0.0.1/", "loopback", true},
		{"http://127.0.0.1:8080/hook", "scheme must be https", true},
		{"https://127.255.255.254/", "loopback", true},
		{"https://localhost/", "loopback name", true},
		{"http://localhost:9000/hook", "scheme must be https", true},
		{"https://LOCALHOST./", "loopback name", true},
		{"https://api.localhost/", "loopback name", true},
		{"https://[::1]/", "loopback", true},
		{"http://[::1]:8080/", "scheme must be https", true},
		{"https://[::ffff:127.0.0.1]/", "IPv4-mapped form of a loopback", true},

		// Other spellings of loopback: refused as loopback in production and as
		// non-canonical under the switch.
		{"https://2130706433/", "127.0.0.1 is a loopback", false},
		{"https://0177.0.0.1/", "127.0.0.1 is a loopback", false},
		{"https://0x7f.1/", "127.0.0.1 is a loopback", false},
		{"https://127.1/", "127.0.0.1 is a loopback", false},
		{"https://0x7f000001/", "127.0.0.1 is a loopback", false},
		{"https://017700000001/", "127.0.0.1 is a loopback", false},
		{"https://127.0.0.1./", "loopback", false},
		{"https://%31%32%37.0.0.1/", "does not parse", false},
		{"https://0x08.0x08.0x08.0x08/", "non-canonical IPv4", false},
		{"https://134744072/", "non-canonical IPv4", false},
		{"https://1.2.3.256/", "not a valid one", false},
		{"https://0x100000000/", "not a valid one", false},
		{"https://1.2.3.4.5/", "not a valid one", false},
		{"https://08.0.0.1/", "not a valid one", false},

		// Never allowed: private, CGNAT, link-local, metadata and other ranges.
		{"https://10.0.0.1/", "10.0.0.0/8", false},
		{"http://10.0.0.1/", "scheme must be https", false},
		{"https://012.0.0.1/", "10.0.0.1 is a private", false},
		{"https://167772161/", "10.0.0.1 is a private", false},
		{"https://172.16.5.4/", "172.16.0.0/12", false},
		{"https://172.31.255.255/", "172.16.0.0/12", false},
		{"https://192.168.1.1/", "192.168.0.0/16", false},
		{"https://169.254.169.254/latest/meta-data/", "169.254.0.0/16", false},
		{"http://169.254.169.254/latest/meta-data/", "scheme must be https", false},
		{"https://169.254.170.2/v2/credentials", "169.254.0.0/16", false},
		{"https://0xa9fea9fe/", "169.254.169.254 is a link-local", false},
		{"https://100.64.0.1/", "100.64.0.0/10", false},
		{"https://100.127.255.255/", "100.64.0.0/10", false},
		{"https://198.18.0.1/", "198.18.0.0/15", false},
		{"https://198.19.255.255/", "198.18.0.0/15", false},
		{"https://0.0.0.0/", "0.0.0.0/8", false},
		{"https://0/", "0.0.0.0/8", false},
		{"https://224.0.0.1/", "multicast", false},
		{"https://255.255.255.255/", "broadcast", false},
		{"https://240.0.0.1/", "reserved", false},
		{"https://192.0.2.1/", "documentation", false},
		{"https://[::]/", "unspecified", false},
		{"https://[::ffff:10.0.0.1]/", "IPv4-mapped form of a private", false},
		{"https://[::ffff:a9fe:a9fe]/", "IPv4-mapped form of a link-local", false},
		{"https://[::10.0.0.1]/", "IPv4-compatible", false},
		{"https://[::127.0.0.1]/", "IPv4-compatible", false},
		{"https://[64:ff9b::a00:1]/", "NAT64 form of a private", false},
		{"https://[64:ff9b::7f00:1]/", "NAT64 form of a loopback", false},
		{"https://[64:ff9b:1::1]/", "local-use NAT64", false},
		{"https://[2002:a9fe:a9fe::1]/", "6to4 form of a link-local", false},
		{"https://[fd00:ec2::254]/", "unique local", false},
		{"https://[fc00::1]/", "unique local", false},
		{"https://[fe80::1]/", "link-local", false},
		{"https://[fe80::1%25eth0]/", "zone", false},
		{"https://[fec0::1]/", "site-local", false},
		{"https://[ff02::1]/", "multicast", false},
		{"https://[2001:db8::1]/", "documentation", false},
		{"https://[2001::1]/", "2001::/23", false},
		{"https://[100::1]/", "discard", false},
		{"https://[::2]/", "IPv4-compatible", false},
		{"https://[4000::1]/", "global unicast", false},
		{"https://[not-ipv6]/", "does not parse", false},
		{"https://metadata.google.internal/computeMetadata/v1/", "metadata", false},
		{"https://instance-data/latest/", "metadata", false},
	}
}

func TestCheckURL(t *testing.T) {
	require.GreaterOrEqual(t, len(urlCases()), 30)
	for _, tc := range urlCases() {
		t.Run(tc.url[:min(len(tc.url), 60)], func(t *testing.T) {
			u, err := Policy{}.CheckURL(tc.url)
			if tc.strict == "" {
				require.NoError(t, err)
				assert.Equal(t, "https", u.Scheme)
			} else {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrRefused)
				assert.Contains(t, err.Error(), tc.strict)
				assert.Nil(t, u)
			}

			_, err = Policy{AllowInsecure: true}.CheckURL(tc.url)
			if tc.insecure {
				assert.NoError(t, err, "local-development policy")
			} else {
				assert.ErrorIs(t, err, ErrRefused, "local-development policy")
			}
		})
	}
}

// TestRefusalDoesNotEchoSecrets: a refusal message may be returned to the
// client and logged; it must not contain user information, paths or queries.
func TestRefusalDoesNotEchoSecrets(t *testing.T) {
	for _, raw := range []string{
		"https://alice:s3cret@example.com/hook",
		"http://example.com/hook?token=s3cret",
		"https://10.0.0.1/s3cret",
		"https://example.com/s3cret\x01",
	} {
		_, err := Policy{}.CheckURL(raw)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "s3cret", raw)
	}
}

type addrCase struct {
	addr     string
	strict   string // expected reason fragment; "" = allowed
	insecure bool
}

// addrCases are resolved addresses as the dial guard sees them.
func addrCases() []addrCase {
	return []addrCase{
		{"93.184.216.34", "", true},
		{"8.8.8.8", "", true},
		{"1.1.1.1", "", true},
		{"2606:4700:4700::1111", "", true},
		{"2a05:d018::1", "", true},
		{"::ffff:8.8.8.8", "", true},
		{"64:ff9b::808:808", "", true},
		{"100.63.255.255", "", true},  // just below CGNAT
		{"100.128.0.0", "", true},     // just above CGNAT
		{"172.15.255.255", "", true},  // just below 172.16/12
		{"172.32.0.0", "", true},      // just above 172.16/12
		{"198.17.255.255", "", true},  // just below 198.18/15
		{"198.20.0.0", "", true},      // just above 198.18/15
		{"223.255.255.255", "", true}, // just below multicast

		{"127.0.0.1", "loopback", true},
		{"127.8.9.10", "loopback", true},
		{"::1", "loopback", true},
		{"::ffff:127.0.0.1", "loopback", true},
		{"0.0.0.0", "0.0.0.0/8", false},
		{"0.1.2.3", "0.0.0.0/8", false},
		{"10.0.0.1", "RFC 1918", false},
		{"10.255.255.255", "RFC 1918", false},
		{"172.16.0.1", "RFC 1918", false},
		{"172.31.255.255", "RFC 1918", false},
		{"192.168.0.1", "RFC 1918", false},
		{"169.254.169.254", "link-local", false},
		{"169.254.170.2", "link-local", false},
		{"169.254.100.1", "link-local", false},
		{"100.64.0.1", "CGNAT", false},
		{"100.127.255.254", "CGNAT", false},
		{"198.18.0.1", "benchmarking", false},
		{"198.19.255.255", "benchmarking", false},
		{"192.0.0.8", "IETF", false},
		{"192.0.2.10", "documentation", false},
		{"198.51.100.1", "documentation", false},
		{"203.0.113.1", "documentation", false},
		{"192.88.99.1", "6to4 relay", false},
		{"224.0.0.251", "multicast", false},
		{"239.255.255.250", "multicast", false},
		{"240.0.0.1", "reserved", false},
		{"255.255.255.254", "reserved", false},
		{"255.255.255.255", "broadcast", false},
		{"::", "unspecified", false},
		{"::ffff:10.0.0.1", "IPv4-mapped form of a private", false},
		{"::ffff:169.254.169.254", "IPv4-mapped form of a link-local", false},
		{"::ffff:100.64.0.1", "IPv4-mapped form of a shared", false},
		{"::ffff:0.0.0.0", "IPv4-mapped", false},
		{"::ffff:255.255.255.255", "IPv4-mapped form of a broadcast", false},
		{"::10.0.0.1", "IPv4-compatible", false},
		{"64:ff9b::10.0.0.1", "NAT64 form of a private", false},
		{"64:ff9b::169.254.169.254", "NAT64 form of a link-local", false},
		{"64:ff9b::127.0.0.1", "NAT64 form of a loopback", false},
		{"2002:c0a8:0101::1", "6to4 form of a private", false},
		{"fc00::1", "unique local", false},
		{"fd00:ec2::254", "unique local", false},
		{"fe80::1", "link-local", false},
		{"fe80::1%eth0", "link-local", false},
		{"febf:ffff::1", "link-local", false},
		{"fec0::1", "site-local", false},
		{"ff02::1", "multicast", false},
		{"ff05::1:3", "multicast", false},
		{"2001:db8::1", "documentation", false},
		{"3fff::1", "documentation", false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo", false},
		{"100::1", "discard", false},
		{"1::1", "global unicast", false},
	}
}

func TestCheckAddrAndControl(t *testing.T) {
	require.GreaterOrEqual(t, len(addrCases()), 30)
	for _, tc := range addrCases() {
		t.Run(tc.addr, func(t *testing.T) {
			ip := netip.MustParseAddr(tc.addr)
			network := "tcp6"
			if ip.Is4() {
				network = "tcp4"
			}
			dial := netip.AddrPortFrom(ip, 443).String()
			for _, err := range []error{Policy{}.CheckAddr(ip), Policy{}.Control(network, dial, nil)} {
				if tc.strict == "" {
					assert.NoError(t, err)
					continue
				}
				assert.ErrorIs(t, err, ErrRefused)
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), tc.strict)
				}
			}
			insecure := Policy{AllowInsecure: true}
			for _, err := range []error{insecure.CheckAddr(ip), insecure.Control(network, dial, nil)} {
				if tc.insecure {
					assert.NoError(t, err, "local-development policy")
				} else {
					assert.ErrorIs(t, err, ErrRefused, "local-development policy")
				}
			}
		})
	}
}

func TestControlRefusesOtherNetworksAndNames(t *testing.T) {
	assert.ErrorIs(t, Policy{}.Control("udp4", "8.8.8.8:53", nil), ErrRefused)
	assert.ErrorIs(t, Policy{}.Control("tcp4", "example.com:443", nil), ErrRefused)
	assert.NoError(t, Policy{}.Control("tcp4", "8.8.8.8:443", nil))
}

func TestParseIPv4Literal(t *testing.T) {
	tests := []struct {
		host    string
		want    string
		numeric bool
		bad     bool
	}{
		{"127.0.0.1", "127.0.0.1", true, false},
		{"2130706433", "127.0.0.1", true, false},
		{"0177.0.0.1", "127.0.0.1", true, false},
		{"012.0.0.1", "10.0.0.1", true, false},
		{"0x7f.1", "127.0.0.1", true, false},
		{"0X7F.0X0.0X0.0X1", "127.0.0.1", true, false},
		{"127.1", "127.0.0.1", true, false},
		{"10.1.2", "10.1.0.2", true, false},
		{"0x", "0.0.0.0", true, false},
		{"0", "0.0.0.0", true, false},
		{"1.2.3.4.", "1.2.3.4", true, false},
		{"4294967295", "255.255.255.255", true, false},
		{"4294967296", "", true, true},
		{"256.1", "", true, true},
		{"1.16777216", "", true, true},
		{"1.2.65536", "", true, true},
		{"1.2.3.4.5", "", true, true},
		{"1..2", "", true, true},
		{"09", "", true, true},
		{"0xg.1", "", true, true},
		{"example.com", "", false, false},
		{"1.2.3.x", "", false, false},
		{"0x1g", "", false, false},
		{"", "", false, false},
	}
	for _, tt := range tests {
		ip, numeric, err := parseIPv4Literal(tt.host)
		assert.Equal(t, tt.numeric, numeric, tt.host)
		if tt.bad {
			assert.ErrorIs(t, err, errBadIPv4, tt.host)
			continue
		}
		assert.NoError(t, err, tt.host)
		if tt.want != "" {
			assert.Equal(t, tt.want, ip.String(), tt.host)
		}
	}
}
