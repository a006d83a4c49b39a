package detect

import (
	"strings"
	"unicode"
)

// Policy kinds.
const (
	PolicyReturns  = "returns"
	PolicyShipping = "shipping"
	PolicyPrivacy  = "privacy"
	PolicyTerms    = "terms"
)

// PolicyLink is one policy page linked from the homepage.
type PolicyLink struct {
	// URL is absolute, resolved against the page (and its <base href>).
	URL string `json:"url"`
	// Text is the link text, for evidence.
	Text string `json:"text,omitempty"`
	// By says what matched: "path", "text" or "path+text".
	By string `json:"by"`
}

// Policies are the policy pages a homepage links to; nil means no link of
// that kind was found on this page (the pages may still exist elsewhere).
type Policies struct {
	Returns  *PolicyLink `json:"returns"`
	Shipping *PolicyLink `json:"shipping"`
	Privacy  *PolicyLink `json:"privacy"`
	Terms    *PolicyLink `json:"terms"`
}

// Found counts the kinds found, out of four.
func (p Policies) Found() int {
	n := 0
	for _, l := range []*PolicyLink{p.Returns, p.Shipping, p.Privacy, p.Terms} {
		if l != nil {
			n++
		}
	}
	return n
}

// policyWords are the words, as path or text tokens, that name each kind.
// A token matches when it starts with the word, so "returns" and
// "refund-policy" both match. English first, then the languages of the
// larger store markets.
var policyWords = []struct {
	kind  string
	words []string
}{
	{PolicyReturns, []string{"return", "refund", "exchange", "widerruf", "retour", "rückgabe", "ruckgabe", "devolucion", "devoluciones", "devolución", "reso", "resi", "rimborso"}},
	{PolicyShipping, []string{"shipping", "delivery", "shipment", "versand", "lieferung", "livraison", "envio", "envío", "envios", "spedizione", "spedizioni", "verzending"}},
	{PolicyPrivacy, []string{"privacy", "datenschutz", "privacidad", "confidentialite", "confidentialité", "privacybeleid", "gdpr"}},
	{PolicyTerms, []string{"terms", "tos", "agb", "cgv", "conditions", "condiciones", "termini", "voorwaarden", "nutzungsbedingungen"}},
}

// FindPolicies finds links to the returns, shipping, privacy and terms
// pages in the page's anchors, by the href path and by the link text. Only
// same-site links count (same registrable domain as the page): a policy
// hosted by a third party is not the store's page. Per kind, a link that
// matches on both path and text beats one that matches on one; otherwise
// the first in the document wins. One link can serve two kinds ("Shipping
// & Returns").
func FindPolicies(p *Page) Policies {
	var out Policies
	if p.URL == nil {
		return out
	}
	slot := map[string]**PolicyLink{
		PolicyReturns: &out.Returns, PolicyShipping: &out.Shipping, PolicyPrivacy: &out.Privacy, PolicyTerms: &out.Terms,
	}
	score := map[string]int{}
	pageHost := strings.ToLower(p.URL.Hostname())
	site := RegistrableDomain(pageHost)
	for _, a := range p.doc.anchors {
		textToks := wordTokens(strings.ToLower(a.text))
		// Most anchors are menus and products: skip them before paying for
		// URL resolution and the public-suffix lookup.
		if !anyPolicyWord(textToks) && !anyPolicyWord(wordTokens(strings.ToLower(a.href))) {
			continue
		}
		u := resolve(p.doc.base, a.href)
		if u == nil {
			continue
		}
		if h := strings.ToLower(u.Hostname()); h != pageHost && (site == "" || RegistrableDomain(h) != site) {
			continue
		}
		pathToks := wordTokens(strings.ToLower(u.Path))
		for _, pw := range policyWords {
			byPath, byText := anyPrefix(pathToks, pw.words), anyPrefix(textToks, pw.words)
			s := 0
			if byPath {
				s++
			}
			if byText {
				s++
			}
			if s == 0 || s <= score[pw.kind] {
				continue
			}
			by := "path+text"
			switch {
			case !byText:
				by = "path"
			case !byPath:
				by = "text"
			}
			score[pw.kind] = s
			*slot[pw.kind] = &PolicyLink{URL: u.String(), Text: truncateUTF8(a.text, 120), By: by}
		}
	}
	return out
}

// policyHeads holds the first two bytes of every policy word, so most
// tokens are ruled out by one map lookup.
var policyHeads = func() map[string]bool {
	m := map[string]bool{}
	for _, pw := range policyWords {
		for _, w := range pw.words {
			m[w[:2]] = true
		}
	}
	return m
}()

// anyPolicyWord reports whether any token could name a policy of any kind.
func anyPolicyWord(toks []string) bool {
	for _, t := range toks {
		if len(t) < 2 || !policyHeads[t[:2]] {
			continue
		}
		for _, pw := range policyWords {
			if anyPrefix([]string{t}, pw.words) {
				return true
			}
		}
	}
	return false
}

// wordTokens splits s into runs of letters and digits.
func wordTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func anyPrefix(toks, words []string) bool {
	for _, t := range toks {
		if t == "returning" { // "Returning customer? Sign in"
			continue
		}
		for _, w := range words {
			if strings.HasPrefix(t, w) {
				// Short words must match whole: "tos" must not match "tostadas".
				if len(w) <= 4 && t != w && !strings.HasPrefix(t, w+"s") {
					continue
				}
				return true
			}
		}
	}
	return false
}
