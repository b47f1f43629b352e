package egress

import (
	"net/netip"
)

// addrVerdict is what the address rules say about one IP address.
type addrVerdict struct {
	// reason is empty when the address is allowed.
	reason string
	// loopback is true when the only objection is that the address is a
	// loopback address, which the local-development switch allows.
	loopback bool
}

// classify applies the address rules to ip (its zone is ignored). The
// rules follow the IANA special-purpose address registries: everything that
// is not a globally reachable unicast address is refused, and IPv6 forms
// that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by the
// embedded address.
func classify(ip netip.Addr) addrVerdict {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return addrVerdict{reason: "invalid address"}
	}
	if ip.Is4() {
		return classify4(ip.As4())
	}
	return classify6(ip.As16())
}

// classify4 judges an IPv4 address given as four bytes.
func classify4(a [4]byte) addrVerdict {
	switch {
	case a[0] == 0:
		return addrVerdict{reason: "\"this network\" address (0.0.0.0/8)"}
	case a[0] == 10:
		return addrVerdict{reason: "private address (10.0.0.0/8, RFC 1918)"}
	case a[0] == 100 && a[1]&0xc0 == 64:
		return addrVerdict{reason: "shared (CGNAT) address (100.64.0.0/10)"}
	case a[0] == 127:
		return addrVerdict{reason: "loopback address (127.0.0.0/8)", loopback: true}
	case a[0] == 169 && a[1] == 254:
		return addrVerdict{reason: "link-local address (169.254.0.0/16: cloud metadata and runtime endpoints)"}
	case a[0] == 172 && a[1]&0xf0 == 16:
		return addrVerdict{reason: "private address (172.16.0.0/12, RFC 1918)"}
	case a[0] == 192 && a[1] == 0 && a[2] == 0:
		return addrVerdict{reason: "IETF protocol assignment address (192.0.0.0/24)"}
	case a[0] == 192 && a[1] == 0 && a[2] == 2:
		return addrVerdict{reason: "documentation address (192.0.2.0/24)"}
	case a[0] == 192 && a[1] == 88 && a[2] == 99:
		return addrVerdict{reason: "6to4 relay anycast address (192.88.99.0/24)"}
	case a[0] == 192 && a[1] == 168:
		return addrVerdict{reason: "private address (192.168.0.0/16, RFC 1918)"}
	case a[0] == 198 && a[1]&0xfe == 18:
		return addrVerdict{reason: "benchmarking address (198.18.0.0/15)"}
	case a[0] == 198 && a[1] == 51 && a[2] == 100:
		return addrVerdict{reason: "documentation address (198.51.100.0/24)"}
	case a[0] == 203 && a[1] == 0 && a[2] == 113:
		return addrVerdict{reason: "documentation address (203.0.113.0/24)"}
	case a[0] >= 224 && a[0] < 240:
		return addrVerdict{reason: "multicast address (224.0.0.0/4)"}
	case a == [4]byte{255, 255, 255, 255}:
		return addrVerdict{reason: "broadcast address (255.255.255.255)"}
	case a[0] >= 240:
		return addrVerdict{reason: "reserved address (240.0.0.0/4)"}
	}
	return addrVerdict{}
}

// classify6 judges an IPv6 address given as sixteen bytes.
func classify6(b [16]byte) addrVerdict {
	var zero12 [12]byte
	switch {
	case [12]byte(b[:12]) == [12]byte{10: 0xff, 11: 0xff}:
		// ::ffff:0:0/96, IPv4-mapped: the same rules as the IPv4 address.
		return embedded("IPv4-mapped", classify4([4]byte(b[12:])), true)
	case b == [16]byte{}:
		return addrVerdict{reason: "unspecified address (::)"}
	case b == [16]byte{15: 1}:
		return addrVerdict{reason: "loopback address (::1)", loopback: true}
	case [12]byte(b[:12]) == zero12:
		return addrVerdict{reason: "IPv4-compatible address (::/96, deprecated)"}
	case [12]byte(b[:12]) == [12]byte{0x00, 0x64, 0xff, 0x9b}:
		// 64:ff9b::/96, the well-known NAT64 prefix, reaches the embedded
		// IPv4 address.
		return embedded("NAT64", classify4([4]byte(b[12:])), false)
	case [6]byte(b[:6]) == [6]byte{0x00, 0x64, 0xff, 0x9b, 0x00, 0x01}:
		return addrVerdict{reason: "local-use NAT64 address (64:ff9b:1::/48)"}
	case [8]byte(b[:8]) == [8]byte{0x01}:
		return addrVerdict{reason: "discard-only address (100::/64)"}
	case b[0]&0xfe == 0xfc:
		return addrVerdict{reason: "unique local address (fc00::/7)"}
	case b[0] == 0xfe && b[1]&0xc0 == 0x80:
		return addrVerdict{reason: "link-local address (fe80::/10)"}
	case b[0] == 0xfe && b[1]&0xc0 == 0xc0:
		return addrVerdict{reason: "site-local address (fec0::/10, deprecated)"}
	case b[0] == 0xff:
		return addrVerdict{reason: "multicast address (ff00::/8)"}
	case b[0]&0xe0 != 0x20:
		return addrVerdict{reason: "address outside global unicast space (2000::/3)"}
	case b[0] == 0x20 && b[1] == 0x01 && b[2]&0xfe == 0:
		return addrVerdict{reason: "IETF protocol assignment address (2001::/23, includes Teredo)"}
	case b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8:
		return addrVerdict{reason: "documentation address (2001:db8::/32)"}
	case b[0] == 0x3f && b[1]&0xf0 == 0xf0:
		return addrVerdict{reason: "documentation address (3fff::/20)"}
	case b[0] == 0x20 && b[1] == 0x02:
		// 2002::/16, 6to4: bytes 2..5 are the IPv4 address it reaches.
		return embedded("6to4", classify4([4]byte(b[2:6])), false)
	}
	return addrVerdict{}
}

// embedded qualifies the verdict on an IPv4 address embedded in an IPv6 one.
// Only the IPv4-mapped form of a loopback address is a loopback address: the
// translated forms (NAT64, 6to4) leave the host through a gateway.
func embedded(form string, v addrVerdict, keepLoopback bool) addrVerdict {
	if v.reason == "" {
		return v
	}
	v.reason = form + " form of a " + v.reason
	v.loopback = v.loopback && keepLoopback
	return v
}
