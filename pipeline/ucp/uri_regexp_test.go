package ucp

import (
	"regexp"
	"strings"
)

// uriRE is ajv-formats' full-mode "uri" expression, transcribed: the oracle
// the hand-written isURI is checked against.
var uriRE = func() *regexp.Regexp {
	const (
		h16      = `[0-9a-f]{1,4}`
		dec      = `(?:25[0-5]|2[0-4]\d|[01]?\d\d?)`
		ipv4     = `(?:` + dec + `\.){3}` + dec
		ls32     = `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
		pctEnc   = `%[0-9a-f]{2}`
		unresSub = `a-z0-9\-._~!$&'()*+,;=`
		pchar    = `(?:[` + unresSub + `:@]|` + pctEnc + `)`
	)
	ipv6 := `(?:(?:(?:` + h16 + `:){6}|::(?:` + h16 + `:){5}|(?:` + h16 + `)?::(?:` + h16 + `:){4}|` +
		`(?:(?:` + h16 + `:){0,1}` + h16 + `)?::(?:` + h16 + `:){3}|(?:(?:` + h16 + `:){0,2}` + h16 + `)?::(?:` + h16 + `:){2}|` +
		`(?:(?:` + h16 + `:){0,3}` + h16 + `)?::` + h16 + `:|(?:(?:` + h16 + `:){0,4}` + h16 + `)?::)` + ls32 + `|` +
		`(?:(?:` + h16 + `:){0,5}` + h16 + `)?::` + h16 + `|(?:(?:` + h16 + `:){0,6}` + h16 + `)?::)`
	ipFuture := `[v][0-9a-f]+\.[` + unresSub + `:]+`
	userinfo := `(?:(?:[` + unresSub + `:]|` + pctEnc + `)*@)?`
	host := `(?:\[(?:` + ipv6 + `|` + ipFuture + `)\]|` + ipv4 + `|(?:[` + unresSub + `]|` + pctEnc + `)*)`
	authorityPath := `\/?\/` + userinfo + host + `(?::\d*)?(?:\/` + pchar + `*)*`
	absPath := `\/(?:` + pchar + `+(?:\/` + pchar + `*)*)?`
	rootless := pchar + `+(?:\/` + pchar + `*)*`
	query := `(?:\?(?:[` + unresSub + `:@/?]|` + pctEnc + `)*)?`
	fragment := `(?:#(?:[` + unresSub + `:@/?]|` + pctEnc + `)*)?`
	return regexp.MustCompile(`(?i)^(?:[a-z][a-z0-9+\-.]*:)(?:` + authorityPath + `|` + absPath + `|` + rootless + `)` + query + fragment + `$`)
}()

// ajvURI is ajv-formats' uri(): NOT_URI_FRAGMENT and the expression. The
// expression has ASCII classes only; JavaScript's case folding (without the
// u flag) never maps a non-ASCII character onto them, so non-ASCII fails.
func ajvURI(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return strings.ContainsAny(s, "/:") && uriRE.MatchString(s)
}
