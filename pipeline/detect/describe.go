package detect

import (
	"bytes"
	"html"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
)

// Two of the agent facts are read from the words a store uses to describe
// what it sells: does the text say what a product is for or who it is for
// (a use-case mention), and is it a description an agent can use (agent
// friendly). Both judge one text, the first of these the check read:
//
//   - DescJSONLD: the description of the Product JSON-LD whose product
//     data the check kept (schema.org Text: plain text);
//   - DescCatalog: that product's description in the public catalog
//     (products.json body_html, the Store API's short description: HTML);
//   - DescProductMeta: the product page's meta description or
//     og:description;
//   - DescHomeMeta: the homepage's meta description or og:description (the
//     store's summary of itself, not a product's).
//
// The text is cleaned (tags dropped, entities decoded, white space folded)
// and cut to MaxDescriptionText characters; the decisions read that text.

// Sources of the judged description.
const (
	DescJSONLD      = "jsonld"
	DescCatalog     = "catalog"
	DescProductMeta = "product_meta"
	DescHomeMeta    = "home_meta"
)

// MaxDescriptionText bounds the description text kept and judged, in
// characters.
const MaxDescriptionText = 1000

// Issues that make a description not agent friendly.
const (
	IssueTooShort    = "too_short"    // fewer than MinFriendlyWords words
	IssueMarkup      = "markup"       // HTML tags or entities in a plain-text field
	IssuePlaceholder = "placeholder"  // lorem ipsum, "coming soon" and the like
	IssueRepeatsName = "repeats_name" // says no more than the product's name
	IssueNoSpecifics = "no_specifics" // no number and no material, ingredient or spec term
)

// MinFriendlyWords is the fewest words an agent-friendly description has:
// fewer cannot say what the product is and what it is made of.
const MinFriendlyWords = 20

// DescriptionJudgement is what the two decisions read from one text.
type DescriptionJudgement struct {
	// Text is the cleaned text judged, at most MaxDescriptionText
	// characters.
	Text  string `json:"text"`
	Words int    `json:"words"`
	// UseCases are the phrases that say what the product is for or who it
	// is for (at most 5); the use case is mentioned when there is one.
	UseCases []string `json:"useCases"`
	// Issues are the reasons the text is not agent friendly, in the order
	// of the Issue constants; it is friendly when there is none.
	Issues []string `json:"issues"`
}

// UseCaseMentioned reports whether a use case is mentioned.
func (j DescriptionJudgement) UseCaseMentioned() bool { return len(j.UseCases) > 0 }

// AgentFriendly reports whether no issue was found.
func (j DescriptionJudgement) AgentFriendly() bool { return len(j.Issues) == 0 }

// JudgeDescription cleans raw, read from source, and judges it. name is the
// product's name ("" when the text is not a product's). ok is false when
// nothing is left to judge.
//
// Agent friendly means none of these holds: fewer than MinFriendlyWords
// words (too_short); HTML tags or character entities in a field meant as
// plain text, the JSON-LD description or a meta description (markup: an
// agent reads them as text); placeholder text (placeholder); no more than
// the product's name (repeats_name); no concrete fact an agent can match,
// that is no number (a size, weight, count, percentage) and no term of
// material, ingredient, fit or technical spec (no_specifics).
//
// A use case is mentioned when the text holds one of:
//
//   - a purpose phrase: ideal, perfect, great, good, best, made, designed,
//     built, suitable, intended, engineered, formulated, crafted,
//     tailored, meant, created or recommended "for" something other than
//     sale, free, less, you or life ("designed for trail running");
//   - "for" an audience, activity, place or occasion of a fixed list, with
//     up to three words between ("for sensitive skin", "for a calmer home",
//     "for little ones");
//   - a use phrase: "use it to/for/on/in/as/with/when", "wear it
//     to/for/with/under/over", "helps (you) <verb>", "keeps you <word>",
//     "whether you're".
func JudgeDescription(raw, source, name string) (j DescriptionJudgement, ok bool) {
	markup := false
	if source != DescCatalog {
		markup = hasMarkup(raw)
	}
	text := cleanText(raw)
	if text == "" {
		return DescriptionJudgement{}, false
	}
	if utf8.RuneCountInString(text) > MaxDescriptionText {
		text = truncateWords(text, MaxDescriptionText)
	}
	j = DescriptionJudgement{Text: text, UseCases: useCases(text), Issues: []string{}}
	for _, f := range strings.Fields(text) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			j.Words++
		}
	}
	lower := strings.ToLower(text)
	for _, is := range []struct {
		issue string
		holds bool
	}{
		{IssueTooShort, j.Words < MinFriendlyWords},
		{IssueMarkup, markup},
		{IssuePlaceholder, placeholder.MatchString(lower)},
		{IssueRepeatsName, repeatsName(lower, name)},
		{IssueNoSpecifics, !hasSpecifics(lower)},
	} {
		if is.holds {
			j.Issues = append(j.Issues, is.issue)
		}
	}
	return j, true
}

// markupPattern finds an HTML tag or a character entity.
var markupPattern = regexp.MustCompile(`(?i)</?[a-z][a-z0-9]*(\s[^<>]*)?/?>|&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});`)

func hasMarkup(s string) bool { return markupPattern.MatchString(s) }

// tagPattern is an HTML tag, comment or declaration.
var tagPattern = regexp.MustCompile(`(?s)<!--.*?-->|</?[A-Za-z!][^<>]*>`)

// cleanText drops tags, decodes entities and folds white space.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = tagPattern.ReplaceAllString(s, " ")
	s = html.UnescapeString(s)
	return strings.Join(strings.Fields(s), " ")
}

// truncateWords cuts s to at most n characters, at a word boundary when
// there is one in the last tenth.
func truncateWords(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*9/10 {
		cut = cut[:i]
	}
	return cut
}

// placeholder matches filler text: lorem ipsum and its kin (WooCommerce's
// sample products ship "Pellentesque habitant morbi tristique ..." and
// "This is a variable product."), and notes that a description is to come.
var placeholder = regexp.MustCompile(`\blorem ipsum\b|\bpellentesque habitant\b|\bdolor sit amet\b|\bcoming soon\b|` +
	`\bdescription (coming|to follow|goes here)\b|\bno description\b|\bthis is an? (simple|variable|grouped|external|sample|test|demo) product\b|` +
	`\b(tbd|tba|todo|placeholder|sample text|dummy text|test product)\b|^(n/?a|none|-+|\.+|description)$`)

// repeatsName reports whether the text says no more than the name.
func repeatsName(lowerText, name string) bool {
	if name == "" {
		return false
	}
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ")
	}
	t, n := norm(lowerText), norm(name)
	return t != "" && strings.Contains(n, t)
}

// specTerms are words of material, ingredient, fit or technical spec that
// make a description concrete.
var specTerms = regexp.MustCompile(`\b(cotton|wool|merino|linen|silk|leather|suede|denim|cashmere|polyester|nylon|spandex|elastane|` +
	`viscose|rayon|hemp|bamboo|fleece|canvas|steel|stainless|aluminium|aluminum|titanium|brass|copper|bronze|silver|` +
	`gold|sterling|platinum|ceramic|porcelain|stoneware|glass|oak|walnut|maple|pine|beech|teak|rattan|rubber|silicone|` +
	`latex|vegan|organic|gluten-free|dairy-free|fragrance-free|hypoallergenic|waterproof|water-resistant|breathable|` +
	`dishwasher|machine[- ]washable|washable|bluetooth|usb|usb-c|wi-?fi|wireless|battery|ingredients?|contains|` +
	`dimensions|measures|weighs|weight|capacity|fits|compatible|made in|sizes?)\b`)

var digit = regexp.MustCompile(`\d`)

func hasSpecifics(lower string) bool { return digit.MatchString(lower) || specTerms.MatchString(lower) }

// Use-case cues (see JudgeDescription).
var (
	purposeFor = regexp.MustCompile(`(?i)\b(ideal|perfect|great|good|best|made|designed|built|suitable|intended|engineered|` +
		`formulated|crafted|tailored|meant|created|recommended) for\s+([\p{L}\p{N}'-]+)`)
	purposeStop = map[string]bool{"sale": true, "free": true, "less": true, "you": true, "yourself": true, "life": true,
		"ever": true, "years": true, "good": true, "nothing": true, "us": true}
	audienceFor = regexp.MustCompile(`(?i)\bfor\s+(?:[\p{L}'-]+\s+){0,3}?(kids|children|toddlers|babies|baby|newborns|teens|` +
		`little ones|men|women|adults|beginners|professionals|pros|athletes|runners|hikers|climbers|cyclists|swimmers|` +
		`travell?ers|commuters|students|families|gardeners|cooks|chefs|bakers|gamers|pets|dogs|cats|puppies|kittens|` +
		`skin|hair|home|kitchen|office|work|travel|camping|hiking|running|cycling|training|workouts?|gym|yoga|school|` +
		`everyday use|daily use|everyday wear|weddings|parties|gifts?|gifting|winter|summer|rain|outdoors|commuting|` +
		`cooking|baking|grilling|sleep|sleeping|relaxation|meditation)\b`)
	usePhrase = regexp.MustCompile(`(?i)\b(use (it|them|this|these) (to|for|on|in|as|with|when)|wear (it|them|this|these) ` +
		`(to|for|with|under|over)|helps? (you )?(to )?[\p{L}]+|keeps? you [\p{L}]+|whether you('re| are))\b`)
)

// useCases returns the use-case phrases of text, each with up to three
// words after its cue, at most 5.
func useCases(text string) []string {
	type span struct{ at, end int }
	var spans []span
	for _, m := range purposeFor.FindAllStringSubmatchIndex(text, 8) {
		if !purposeStop[strings.ToLower(text[m[4]:m[5]])] {
			spans = append(spans, span{m[0], m[1]})
		}
	}
	for _, re := range []*regexp.Regexp{audienceFor, usePhrase} {
		for _, m := range re.FindAllStringIndex(text, 8) {
			spans = append(spans, span{m[0], m[1]})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.at - b.at })
	out := []string{}
	last := -1
	for _, s := range spans {
		if s.at < last || len(out) >= 5 {
			continue // overlaps the previous phrase
		}
		end := extendWords(text, s.end, 3)
		last = end
		out = append(out, strings.TrimSpace(text[s.at:end]))
	}
	return out
}

// extendWords moves end forward over up to n more words, stopping at
// punctuation that ends a clause.
func extendWords(s string, end, n int) int {
	for i := 0; i < n && end < len(s); i++ {
		j := end
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && s[k] != ' ' && !strings.ContainsRune(".,;:!?()", rune(s[k])) {
			k++
		}
		if k == j {
			break
		}
		end = k
		if k < len(s) && s[k] != ' ' {
			break
		}
	}
	return end
}

// MetaDescription is the page's <meta name="description">, else its
// og:description, as written (entities decoded); "" for none.
func MetaDescription(p *Page) string {
	for _, m := range p.doc.metas {
		if m.name == "description" && strings.TrimSpace(m.content) != "" {
			return m.content
		}
	}
	z := xhtml.NewTokenizer(bytes.NewReader(p.Body))
	for n := 0; n < maxTokenPerPage; n++ {
		switch z.Next() {
		case xhtml.ErrorToken:
			return ""
		case xhtml.StartTagToken, xhtml.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "meta":
				a := readAttrs(z, hasAttr, "property", "content")
				if strings.EqualFold(strings.TrimSpace(a[0]), "og:description") && strings.TrimSpace(a[1]) != "" {
					return a[1]
				}
			}
		}
	}
	return ""
}
