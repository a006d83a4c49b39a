package detect

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxPriceText is the longest price string read; longer text is prose, not
// a price.
const maxPriceText = 256

// parsePrice reads a price given as a JSON number or a string and returns
// it as a plain decimal string, or "" unless it holds exactly one finite
// number > 0. See parsePriceIn.
func parsePrice(v any) string { return parsePriceIn(v, "") }

// parsePriceIn reads a price as parsePrice does, helped by the offer's ISO
// 4217 currency code (may be empty), which settles "1.500" for currencies
// without minor units (JPY: 1500) and with three (KWD: 1.5).
//
// A JSON number is taken as it is. A string in schema.org's own form
// ("19.99": digits and at most one full stop) is read as a decimal number.
// Anything else is read the way stores write prices for people: a currency
// symbol, code or word around the number, thousands separators (",", ".",
// space, apostrophe, Indian 1,23,456 grouping), a decimal comma, and ",-"
// or ".–" for no minor units. What is not read as a price:
//   - a full stop or comma that no digit follows: "199,00 грн." is 199.00,
//     "Fr. 12.50" is 12.50, "12.50 (tax incl.)" is 12.50;
//   - a percentage: "40% OFF" holds no price;
//   - a negative amount: "-5" and "-€5" hold no price;
//   - a string with two different amounts ("$12.99 - $13.99", "AED 8000
//     (USD 2179)", "2 for $30"): we decline rather than guess which one an
//     agent would pay; the same amount written twice is one price;
//   - a number whose separators fit no format ("15.08.2017").
//
// With one separator followed by exactly three digits ("1,299", "€1.299")
// the separator groups thousands, except in schema.org's own form, for a
// three-decimal currency (KWD, BHD, OMR, JOD, TND, LYD, IQD) or after a lone
// zero ("0,299").
func parsePriceIn(v any, currency string) string {
	switch x := v.(type) {
	case string:
		return priceFromText(x, strings.ToUpper(strings.TrimSpace(currency)))
	case json.Number:
		return positiveNumber(x.String())
	case float64:
		return positiveNumber(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return ""
}

// priceFromText reads a price string; cur is an upper-case ISO code or "".
func priceFromText(s, cur string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxPriceText {
		return ""
	}
	if plainDecimal(s) {
		// schema.org: "Use '.' ... to indicate a decimal point." Only a
		// currency without minor units turns "1.500" into 1500.
		if i := strings.IndexByte(s, '.'); i > 0 && len(s)-i-1 == 3 && zeroDecimalCurrencies[cur] && strings.Trim(s[:i], "0") != "" {
			return positiveNumber(s[:i] + s[i+1:])
		}
		return positiveNumber(s)
	}
	rs := []rune(s)
	threeDecimals := threeDecimalCurrencies[cur] || mentionsThreeDecimalCurrency(s)
	zeroDecimals := zeroDecimalCurrencies[cur]
	var amounts []string
	for _, t := range scanNumbers(rs) {
		if t.percent(rs) {
			continue
		}
		if t.negative(rs) {
			return ""
		}
		a, ok := t.amount(threeDecimals, zeroDecimals)
		if !ok {
			return ""
		}
		amounts = append(amounts, a)
	}
	if len(amounts) == 0 {
		return ""
	}
	for _, a := range amounts[1:] {
		if sameAmount(a, amounts[0]) {
			continue
		}
		return "" // two prices, a range, or a price and another number
	}
	return positiveNumber(amounts[0])
}

// plainDecimal reports schema.org's form: digits with at most one full stop
// ("19.99", "5", ".5").
func plainDecimal(s string) bool {
	dot, digits := false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot && i+1 < len(s):
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// numToken is one number found in a price string: its rune span and its
// text with separators normalised to '.', ',', ' ' and '\”.
type numToken struct {
	start, end int
	text       string
	// zero marks a ",-" or ".–" after the digits: no minor units, so every
	// separator in text groups thousands.
	zero bool
}

// scanNumbers finds the numbers in rs. A number starts at a digit, or at a
// full stop before a digit that does not follow a letter or digit (".75",
// but not the stop of "Fr.12"). It runs over digits and over separators
// that a digit follows; a space or apostrophe joins only a group of exactly
// three digits, so "4.81 16" is two numbers and "9 800" one.
func scanNumbers(rs []rune) []numToken {
	var out []numToken
	for i := 0; i < len(rs) && len(out) < 32; {
		r := rs[i]
		lead := r == '.' && i+1 < len(rs) && isASCIIDigit(rs[i+1]) && (i == 0 || !isLetterOrDigit(rs[i-1]))
		if !isASCIIDigit(r) && !lead {
			i++
			continue
		}
		var b strings.Builder
		j := i
		for j < len(rs) {
			c := rs[j]
			if isASCIIDigit(c) {
				b.WriteRune(c)
				j++
				continue
			}
			k := separatorKind(c)
			if (k == '.' || k == ',') && spacedCents(rs, j+1) {
				// "119. 95", "1.837, 32 €": a space after the decimal
				// separator, as text copied from a split price reads.
				b.WriteByte(k)
				j += 2
				continue
			}
			if k == 0 || j+1 >= len(rs) || !isASCIIDigit(rs[j+1]) {
				break
			}
			if (k == ' ' || k == '\'') && !threeDigitGroup(rs, j+1) {
				break
			}
			b.WriteByte(k)
			j++
		}
		t := numToken{start: i, end: j, text: b.String()}
		if j+1 < len(rs) && (rs[j] == '.' || rs[j] == ',') && isDash(rs[j+1]) && (j+2 >= len(rs) || !isASCIIDigit(rs[j+2])) {
			t.zero = true
			t.end = j + 2
		}
		out = append(out, t)
		i = t.end
	}
	return out
}

// percent reports a number written as a percentage: "40%", "40 %", "%40".
func (t numToken) percent(rs []rune) bool {
	if t.start > 0 && isPercent(rs[t.start-1]) {
		return true
	}
	for j := t.end; j < len(rs); j++ {
		if isPercent(rs[j]) {
			return true
		}
		if separatorKind(rs[j]) != ' ' {
			return false
		}
	}
	return false
}

// negative reports a minus sign before the number, possibly before its
// currency symbol ("-5", "-€5", "€-5"), but not the dash of a range ("10-20").
func (t numToken) negative(rs []rune) bool {
	k := t.start - 1
	for k >= 0 && unicode.Is(unicode.Sc, rs[k]) {
		k--
	}
	if k < 0 || (rs[k] != '-' && rs[k] != '\u2212') {
		return false
	}
	return k == 0 || !isASCIIDigit(rs[k-1])
}

// amount turns the token into a plain decimal string, or ok false when its
// separators fit no number format.
func (t numToken) amount(threeDecimals, zeroDecimals bool) (string, bool) {
	s := t.text
	var seps []int
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			seps = append(seps, i)
		}
	}
	if len(seps) == 0 {
		return s, true
	}
	if s[0] == '.' {
		if len(seps) == 1 && !t.zero {
			return "0" + s, true // ".75"
		}
		// "$.750.30": a stray stop before the number.
		t.text = s[1:]
		return t.amount(threeDecimals, zeroDecimals)
	}
	last := seps[len(seps)-1]
	lc := s[last]
	decimal := -1
	switch {
	case t.zero:
		// ",-" gave the (absent) minor units: every separator groups.
	case lc == '.' || lc == ',':
		others := seps[:len(seps)-1]
		sameAsLast := 0
		for _, i := range others {
			if s[i] == lc {
				sameAsLast++
			}
		}
		switch {
		case len(others) == 0:
			intPart, frac := s[:last], len(s)-last-1
			if frac != 3 || len(intPart) > 3 || strings.Trim(intPart, "0") == "" ||
				(threeDecimals && !zeroDecimals) {
				decimal = last
			}
		case sameAsLast == 0:
			decimal = last // "1.299,50", "1 299,00", "1,299.50"
		case sameAsLast != len(others):
			return "", false // "1.299,999.50"
		}
	}
	intPart, frac := s, ""
	if decimal >= 0 {
		intPart, frac = s[:decimal], s[decimal+1:]
	}
	digits, ok := ungroup(intPart)
	if !ok {
		return "", false
	}
	if frac == "" {
		return digits, true
	}
	return digits + "." + frac, true
}

// ungroup removes thousands separators from an integer part, checking the
// groups: one kind of separator, a first group of one to three digits and
// groups of three after it, or Indian grouping with commas (1,23,45,678).
func ungroup(s string) (string, bool) {
	var sep byte
	var groups []string
	from := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			if sep != 0 && c != sep {
				return "", false
			}
			sep = c
			groups = append(groups, s[from:i])
			from = i + 1
		}
	}
	if sep == 0 {
		return s, s != ""
	}
	groups = append(groups, s[from:])
	if len(groups[0]) == 0 || len(groups[0]) > 3 || len(groups[len(groups)-1]) != 3 {
		return "", false
	}
	indian := sep == ','
	western := true
	for _, g := range groups[1 : len(groups)-1] {
		western = western && len(g) == 3
		indian = indian && len(g) == 2
	}
	if !western && !(indian && len(groups[0]) <= 2) {
		return "", false
	}
	return strings.Join(groups, ""), true
}

// sameAmount compares two plain decimal strings by value.
func sameAmount(a, b string) bool {
	norm := func(s string) string {
		s = strings.TrimLeft(s, "0")
		if strings.Contains(s, ".") {
			s = strings.TrimRight(s, "0")
			s = strings.TrimSuffix(s, ".")
		}
		return s
	}
	return norm(a) == norm(b)
}

// separatorKind maps a rune that may separate digits to '.', ',', ' ' or
// '\”, else 0.
func separatorKind(r rune) byte {
	switch r {
	case '.', ',':
		return byte(r)
	case ' ', '\u00a0', '\u202f', '\u2009', '\u2007':
		return ' '
	case '\'', '\u2019':
		return '\''
	}
	return 0
}

// spacedCents reports one space and then exactly two digits at rs[i:].
func spacedCents(rs []rune, i int) bool {
	return i+3 <= len(rs) && separatorKind(rs[i]) == ' ' && isASCIIDigit(rs[i+1]) && isASCIIDigit(rs[i+2]) &&
		(i+3 == len(rs) || !isASCIIDigit(rs[i+3]))
}

// threeDigitGroup reports exactly three digits at rs[i:] and no fourth.
func threeDigitGroup(rs []rune, i int) bool {
	if i+3 > len(rs) {
		return false
	}
	for _, r := range rs[i : i+3] {
		if !isASCIIDigit(r) {
			return false
		}
	}
	return i+3 == len(rs) || !isASCIIDigit(rs[i+3])
}

func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isPercent(r rune) bool { return r == '%' || r == '\u066a' || r == '\uff05' }

func isDash(r rune) bool { return r == '-' || r == '\u2013' || r == '\u2014' }

// Currencies without minor units (ISO 4217, then those whose prices carry
// no fractions in practice, where "129.900" can only mean 129900) and ISO
// 4217 currencies with three decimals.
var (
	zeroDecimalCurrencies = setOf("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF",
		"UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
		"ARS", "COP", "HUF", "IDR", "IRR", "KHR", "KZT", "LAK", "LBP", "MMK", "MNT", "NGN", "RSD", "SYP", "TZS", "UZS")
	threeDecimalCurrencies = setOf("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND")
)

func setOf(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// threeDecimalMarks are how prices in three-decimal currencies name them:
// ISO codes, the Latin abbreviations KD and BD, and the Arabic ones.
var threeDecimalMarks = []string{"BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND", "KD", "BD",
	"د.ك", "د.ب", "ر.ع", "د.ت", "د.أ", "د.ا", "ل.د", "ع.د", "د.ع", "د.ل"}

// mentionsThreeDecimalCurrency reports one of threeDecimalMarks in s as a
// word of its own.
func mentionsThreeDecimalCurrency(s string) bool {
	for _, m := range threeDecimalMarks {
		for i := 0; ; {
			j := strings.Index(s[i:], m)
			if j < 0 {
				break
			}
			j += i
			end := j + len(m)
			if !letterBefore(s, j) && !letterAfter(s, end) {
				return true
			}
			i = end
		}
	}
	return false
}

func letterBefore(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	return n > 0 && unicode.IsLetter(r)
}

func letterAfter(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && unicode.IsLetter(r)
}

// positiveNumber returns n as a plain decimal string if it is a finite
// number greater than zero, else "".
func positiveNumber(n string) string {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	if strings.ContainsAny(n, "eE+") {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	// Keep the store's precision ("19.90") but drop noise: a bare trailing
	// point and leading zeros.
	n = strings.TrimSuffix(n, ".")
	if strings.HasPrefix(n, ".") {
		n = "0" + n
	}
	for len(n) > 1 && n[0] == '0' && n[1] != '.' {
		n = n[1:]
	}
	return n
}

// minorUnits turns an integer amount in minor units ("1999") into a decimal
// string ("19.99") without going through floating point. It returns "" for
// anything that is not a positive integer.
func minorUnits(amount string, unit int) string {
	amount = strings.TrimSpace(amount)
	if amount == "" || len(amount) > 30 || unit < 0 || unit > 8 {
		return ""
	}
	for i := 0; i < len(amount); i++ {
		if amount[i] < '0' || amount[i] > '9' {
			return ""
		}
	}
	amount = strings.TrimLeft(amount, "0")
	if amount == "" {
		return "" // zero
	}
	if unit == 0 {
		return amount
	}
	if len(amount) <= unit {
		amount = strings.Repeat("0", unit-len(amount)+1) + amount
	}
	return amount[:len(amount)-unit] + "." + amount[len(amount)-unit:]
}
