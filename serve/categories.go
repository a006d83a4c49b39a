package serve

import (
	"slices"
	"strings"
	"unicode"
)

// categorySlugs are the directory categories (spec 2.12), in the order the
// answers list them.
var categorySlugs = []string{
	"apparel", "footwear", "beauty", "home", "food-drink", "supplements",
	"outdoor", "kids", "pets", "electronics", "jewelry",
}

// CategorySlugs returns the directory's category slugs (spec 2.12).
func CategorySlugs() []string { return slices.Clone(categorySlugs) }

// categoryWords maps the words shoppers use to a category slug. Words are
// matched whole, lower-cased, and also without a plural "s" or "es", so
// "sneakers" and "dresses" find their category. The directory does
// category matching, not inventory search (spec 4.2.6): these words pick a
// category; they do not say that a store sells that product.
var categoryWords = map[string][]string{
	"apparel": {"apparel", "clothes", "clothing", "fashion", "shirt", "tshirt", "tee", "dress", "skirt",
		"jacket", "coat", "jean", "pant", "trouser", "short", "hoodie", "sweater", "sweatshirt", "knitwear",
		"sock", "underwear", "lingerie", "swimwear", "outfit", "suit", "blouse", "legging", "activewear",
		"hat", "cap", "scarf", "glove", "wear"},
	"footwear": {"footwear", "shoe", "sneaker", "trainer", "boot", "sandal", "heel", "loafer", "slipper",
		"flip", "flop", "clog", "runner"},
	"beauty": {"beauty", "makeup", "cosmetic", "skincare", "skin", "lipstick", "mascara", "foundation",
		"perfume", "fragrance", "cologne", "shampoo", "conditioner", "hair", "haircare", "serum",
		"moisturizer", "moisturiser", "cleanser", "sunscreen", "nail", "polish", "lotion", "soap"},
	"home": {"home", "furniture", "decor", "kitchen", "kitchenware", "cookware", "bedding", "bed", "sofa",
		"couch", "chair", "table", "lamp", "lighting", "candle", "rug", "towel", "mattress", "pillow",
		"curtain", "vase", "mug", "plate", "garden", "houseware", "homeware"},
	"food-drink": {"food", "drink", "snack", "coffee", "tea", "wine", "beer", "spirit", "chocolate",
		"grocery", "groceries", "beverage", "sauce", "spice", "pantry", "candy", "cheese", "bakery",
		"juice", "honey", "pasta"},
	"supplements": {"supplement", "vitamin", "protein", "nutrition", "collagen", "probiotic", "magnesium",
		"creatine", "omega", "multivitamin", "electrolyte", "preworkout", "capsule", "gummy", "gummies"},
	"outdoor": {"outdoor", "outdoors", "camping", "camp", "hiking", "hike", "tent", "backpack",
		"fishing", "climbing", "ski", "skiing", "snowboard", "bike", "bicycle", "cycling", "kayak",
		"trail", "sleeping"},
	"kids": {"kid", "kids", "child", "children", "baby", "babies", "toy", "toddler", "stroller",
		"diaper", "nappy", "nursery", "infant", "lego", "puzzle", "game"},
	"pets": {"pet", "dog", "cat", "puppy", "puppies", "kitten", "leash", "collar", "aquarium",
		"litter", "kibble", "treat"},
	"electronics": {"electronics", "electronic", "headphone", "earbud", "phone", "smartphone", "laptop",
		"computer", "speaker", "camera", "charger", "cable", "tv", "television", "gadget", "tablet",
		"audio", "keyboard", "mouse", "monitor", "console", "smartwatch", "drone"},
	"jewelry": {"jewelry", "jewellery", "jewel", "ring", "necklace", "earring", "bracelet", "pendant",
		"watch", "gold", "silver", "diamond", "gem", "gemstone", "brooch", "anklet"},
}

// wordCategory is categoryWords inverted: word -> slug.
var wordCategory = func() map[string]string {
	m := map[string]string{}
	for slug, words := range categoryWords {
		for _, w := range words {
			if prev, dup := m[w]; dup && prev != slug {
				panic("serve: category word " + w + " maps to " + prev + " and " + slug)
			}
			m[w] = slug
		}
	}
	return m
}()

// tiePriority breaks a tie between categories, most specific first: the
// audience (pets, kids) before the kind of product, so "dog food" is pets
// and "baby clothes" is kids.
var tiePriority = []string{
	"pets", "kids", "supplements", "outdoor", "electronics", "jewelry",
	"beauty", "footwear", "apparel", "home", "food-drink",
}

// matchCategories maps a category slug, or shopper words ("running shoes",
// "dog food"), to a category slug. An exact slug (or its words: "food and
// drink") gives that slug. Otherwise each known word votes for its
// category; the most votes win, and a tie goes to the more specific
// category (tiePriority). None when no word is known. It returns a slice
// so a caller can list what it searched.
func matchCategories(text string) []string {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return nil
	}
	if slices.Contains(categorySlugs, t) {
		return []string{t}
	}
	words := strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if strings.Join(words, "-") == "food-drink" || strings.Join(words, " ") == "food and drink" {
		return []string{"food-drink"}
	}
	votes := map[string]int{}
	for _, w := range words {
		if slug, ok := lookupWord(w); ok {
			votes[slug]++
		}
	}
	best := ""
	for _, slug := range tiePriority {
		if votes[slug] > votes[best] {
			best = slug
		}
	}
	if best == "" {
		return nil
	}
	return []string{best}
}

// lookupWord finds w, or w without a plural ending, in the word list.
func lookupWord(w string) (string, bool) {
	if slug, ok := wordCategory[w]; ok {
		return slug, true
	}
	for _, suffix := range []string{"es", "s"} {
		if stem, ok := strings.CutSuffix(w, suffix); ok && len(stem) > 1 {
			if slug, ok := wordCategory[stem]; ok {
				return slug, true
			}
		}
	}
	return "", false
}
