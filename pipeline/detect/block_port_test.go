package detect

import (
	"net/http"
	"testing"
)

// isAntibotVendor maps is-antibot's provider names to ours; a captcha
// provider maps to the captcha reason with whatever vendor the edge names.
var isAntibotVendor = map[string]string{
	"cloudflare": VendorCloudflare, "akamai": VendorAkamai, "datadome": VendorDataDome, "perimeterx": VendorPerimeterX,
	"imperva": VendorImperva, "sucuri": VendorSucuri, "aws-waf": VendorAWSWAF, "vercel": VendorVercel,
}

var isAntibotCaptcha = map[string]bool{
	"recaptcha": true, "hcaptcha": true, "funcaptcha": true, "geetest": true, "friendly-captcha": true,
	"captcha-eu": true, "qcloud-captcha": true, "cloudflare-turnstile": true,
}

// Why we read a ported is-antibot case differently.
const (
	whyOutsideList = "a bot-management product outside our vendor list: a 403 carrying only its marker stays a bare forbidden, not a named wall"
	whyClearance   = "cf_clearance is the cookie of a challenge already passed; alone on a 403 it shows no wall"
)

// isAntibotDifferences are the ported cases we answer on purpose otherwise
// than is-antibot: test name -> why.
var isAntibotDifferences = map[string]string{
	"cloudflare (cf_clearance set-cookie)":          whyClearance,
	"shapesecurity (header)":                        whyOutsideList,
	"shapesecurity (html)":                          whyOutsideList,
	"kasada (header)":                               whyOutsideList,
	"kasada (html)":                                 whyOutsideList,
	"reblaze (rbzid set-cookie)":                    whyOutsideList,
	"reblaze (rbzsessionid set-cookie)":             whyOutsideList,
	"reblaze (html)":                                whyOutsideList,
	"cheq (html CheqSdk)":                           whyOutsideList,
	"cheq (html cheqzone.com)":                      whyOutsideList,
	"threatmetrix (html)":                           whyOutsideList,
	"meetrics (html)":                               whyOutsideList,
	"ocule (html)":                                  whyOutsideList,
	"anubis (html anubis_challenge script tag)":     whyOutsideList,
	"anubis (html static path)":                     whyOutsideList,
	"fullstory-challenge (html _fs-ch- asset path)": whyOutsideList,
	"fullstory-challenge (cookie)":                  whyOutsideList,
	"cloudfront (x-cache Error from cloudfront)":    whyOutsideList,
	"cloudfront (html error page on 403)":           whyOutsideList,
}

// TestIsAntibotSuite runs the response cases of microlinkhq/is-antibot's
// tests (testdata/walls/is-antibot.json, with its source). is-antibot
// answers whether a protection is present; DetectBlock answers whether a
// response is a wall. So a case it detects is served here with its own
// status, or 403 when it gives none (the marker is in a refusal), and must
// be a wall of the same vendor (a captcha provider: reason captcha); a case
// it does not detect is served with its status, or 200, and must not be a
// wall.
func TestIsAntibotSuite(t *testing.T) {
	cases := readPorted[struct {
		Name     string
		Status   *int
		Headers  map[string]string
		HTML     string
		Detected bool
		Provider *string
	}](t, "testdata/walls/is-antibot.json")
	agree, listed := 0, map[string]bool{}
	for _, c := range cases {
		st := 200
		if c.Detected {
			st = 403
		}
		if c.Status != nil {
			st = *c.Status
		}
		h := http.Header{}
		for k, v := range c.Headers {
			h.Add(k, v)
		}
		got := DetectBlock(NewPage(nil, st, h, []byte(c.HTML)))
		var ok bool
		prov := ""
		if c.Provider != nil {
			prov = *c.Provider
		}
		switch {
		case !c.Detected:
			ok = !got.Wall
		case isAntibotCaptcha[prov]:
			ok = got.Wall && got.Reason == ReasonCaptcha
		case isAntibotVendor[prov] != "":
			ok = got.Wall && got.Vendor == isAntibotVendor[prov]
		default:
			ok = got.Wall
		}
		if ok {
			agree++
			if _, l := isAntibotDifferences[c.Name]; l {
				t.Errorf("%s: listed as a difference but agrees", c.Name)
			}
			continue
		}
		if why, l := isAntibotDifferences[c.Name]; l {
			listed[c.Name] = true
			t.Logf("differs on purpose: %s: %s", c.Name, why)
			continue
		}
		t.Errorf("%s (status %d): got %+v; is-antibot: detected %v, provider %q", c.Name, st, got, c.Detected, prov)
	}
	for n := range isAntibotDifferences {
		if !listed[n] {
			t.Errorf("listed difference %q is not a differing ported case", n)
		}
	}
	t.Logf("is-antibot suite: %d of %d cases agree, %d listed differences", agree, len(cases), len(listed))
}
