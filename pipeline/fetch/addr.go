package fetch

import (
	"net/netip"
)

// blockedPrefixes are the address ranges no outbound request may reach:
// everything that is not a globally routable unicast address, plus the cloud
// metadata addresses that sit inside otherwise unremarkable ranges.
var blockedPrefixes = func() []blockedPrefix {
	var out []blockedPrefix
	add := func(reason string, cidrs ...string) {
		for _, c := range cidrs {
			out = append(out, blockedPrefix{netip.MustParsePrefix(c), reason})
		}
	}
	add("unspecified address", "0.0.0.0/8", "::/128")
	add("loopback address", "127.0.0.0/8", "::1/128")
	add("private address", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
	add("shared (CGNAT) address", "100.64.0.0/10")
	add("link-local address", "169.254.0.0/16", "fe80::/10")
	add("site-local address", "fec0::/10")
	add("IETF protocol assignment", "192.0.0.0/24", "2001::/23")
	add("documentation address", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24",
		"2001:db8::/32", "3fff::/20")
	add("benchmarking address", "198.18.0.0/15", "2001:2::/48")
	add("reserved address", "240.0.0.0/4", "::/96", "100::/64")
	add("broadcast address", "255.255.255.255/32")
	add("multicast address", "224.0.0.0/4", "ff00::/8")
	// Metadata services reachable at public-looking or special addresses.
	add("cloud metadata address", "100.100.100.200/32", "fd00:ec2::254/128", "168.63.129.16/32")
	return out
}()

type blockedPrefix struct {
	prefix netip.Prefix
	reason string
}

// translated are IPv6 ranges that embed an IPv4 address; the embedded address
// must pass the same check, or a NAT64 or 6to4 gateway would carry the request
// to a blocked IPv4 destination.
var translated = []struct {
	prefix netip.Prefix
	offset int // byte offset of the embedded IPv4 address
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// BlockedReason says why addr must not be dialled, or "" when it is a public
// unicast address. IPv4-mapped IPv6 addresses are judged as the IPv4 address
// they carry.
func BlockedReason(addr netip.Addr) string {
	if !addr.IsValid() {
		return "invalid address"
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		for _, t := range translated {
			if t.prefix.Contains(addr) {
				b := addr.As16()
				v4 := netip.AddrFrom4([4]byte(b[t.offset : t.offset+4]))
				if r := BlockedReason(v4); r != "" {
					return r + " (embedded in " + t.prefix.String() + ")"
				}
			}
		}
	}
	for _, b := range blockedPrefixes {
		if b.prefix.Contains(addr) {
			return b.reason
		}
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() ||
		addr.IsMulticast() || addr.IsUnspecified() || addr.IsInterfaceLocalMulticast() {
		return "non-public address"
	}
	return ""
}
