package shop

import (
	"fmt"
	"net/url"
	"testing"
)

// TestFinderAddWords: what reads as adding to the cart, in the platforms'
// own words.
func TestFinderAddWords(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Add to cart", true},                // Shopify Dawn buy-buttons.liquid, WooCommerce
		{"Add to Cart", true},                // Magento Luma addtocart.phtml, BigCommerce Cornerstone
		{"Add to cart: “Canvas Tote”", true}, // WooCommerce loop/add-to-cart.php aria-label
		{"Add to bag", true},
		{"Add", true},
		{"+ Add", true},
		{"Add item", true},
		{"Add it to your shopping bag", true},
		{"ADD TO CART", true},
		{"Add to Wish List", false},        // Magento_Wishlist, Cornerstone product-view
		{"Add to wishlist", false},         // YITH WooCommerce Wishlist
		{"Add to Compare", false},          // Magento_Catalog product list and view
		{"Add to favorites", false},        // a heart icon's label
		{"Add to your favourites", false},  // British spelling, possessive
		{"Add to registry", false},         // gift registries
		{"Add to collection", false},       // saved collections
		{"Add item to wishlist", false},    // "item to"
		{"Add to Wish List: Linen", false}, // with the product
		{"Add to a list", false},           // shopping lists
		{"Added to cart", false},           // a confirmation, not a control
		{"Address", false},                 // a field label
		{"Additional information", false},  // WooCommerce's product tab
	} {
		if got := addWords(c.name); got != c.want {
			t.Errorf("addWords(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFinderCheckoutControls: on Magento's cart page (/checkout/cart/),
// "Remove item" links to "#" read as /checkout/cart/#, an address with
// "checkout" in it; they are not checkout controls, and the button whose
// words say checkout comes first.
func TestFinderCheckoutControls(t *testing.T) {
	page := "https://luma.example/checkout/cart/"
	v := view{st: PageState{URL: page}, items: []Item{
		{Ref: 1, Tag: "a", Name: "My Cart 1 items", Href: page, Visible: true, Region: "header"},
		{Ref: 2, Tag: "a", Name: "Remove item", Title: "Remove item", Href: page + "#", Visible: true, Region: "main"},
		{Ref: 3, Tag: "a", Name: "Edit item parameters", Href: page + "#", Visible: true, Region: "main"},
		{Ref: 4, Tag: "a", Name: "shopping cart", Href: "https://luma.example/checkout/cart/", Visible: true, Region: "main"},
		{Ref: 5, Tag: "button", Name: "Proceed to Checkout", Visible: true, Region: "main"},
	}}
	var got []int
	for _, c := range (domFinder{}).checkout(v) {
		got = append(got, c.item.Ref)
	}
	if len(got) != 1 || got[0] != 5 {
		t.Errorf("checkout controls by ref %v, want [5] (the links lead back to this page)", got)
	}
	v = view{st: PageState{URL: "https://luma.example/linen-shirt.html"}, items: []Item{v.items[0], v.items[3], v.items[4]}}
	got = nil
	for _, c := range (domFinder{}).checkout(v) {
		got = append(got, c.item.Ref)
	}
	// From a product page the cart's address leads somewhere; the button
	// still comes first, then the message's link in the main content.
	if want := []int{5, 4, 1}; len(got) != 3 || got[0] != 5 || got[1] != 4 || got[2] != 1 {
		t.Errorf("checkout controls by ref %v, want %v", got, want)
	}
}

// TestFinderOverlayWords: the accept and close controls of consent
// managers, in their own words.
func TestFinderOverlayWords(t *testing.T) {
	for _, c := range []struct {
		name          string
		accept, close bool
	}{
		{"Accept All Cookies", true, false},  // OneTrust #onetrust-accept-btn-handler
		{"Allow all", true, false},           // Cookiebot
		{"Accept", true, false},              // Sourcepoint sp_choice_type_11, Shopify's banner
		{"Agree and Proceed", true, false},   // TrustArc's preference manager (a.call)
		{"Accept & Close", true, false},      // common banners
		{"Accept and continue", true, false}, // common banners
		{"Accept all and pay", false, false}, // never a payment
		{"Reject All", false, true},          // OneTrust
		{"Cookies Settings", false, false},   // a settings panel, not a dismissal
		{"Close", false, true},
		// Sign-up and welcome pop-ups.
		{"Close dialog", false, true},                   // Klaviyo's form close (aria-label)
		{"Dismiss this popup", false, true},             // an SMS sign-up's close
		{"Close this dialog", false, true},              // a newsletter modal
		{"No thanks, I'll pay full price", false, true}, // a discount pop-up's decline
		{"Start shopping", false, true},                 // a shop-in-your-currency welcome
		{"Continue to store", false, true},
		{"Continue to checkout", false, false},
	} {
		if got := reAccept.MatchString(c.name); got != c.accept {
			t.Errorf("accept %q = %v, want %v", c.name, got, c.accept)
		}
		if got := reClose.MatchString(c.name); got != c.close {
			t.Errorf("close %q = %v, want %v", c.name, got, c.close)
		}
	}
}

// TestFinderScriptCards: product cards that open their product by script
// are product controls for A after every link: a div with a click handler
// (a React card), a button named after the product in a card (a tile's
// title routed by onClick); quick views, wish lists, add buttons and
// anything outside the main content are not.
func TestFinderScriptCards(t *testing.T) {
	s := &session{}
	u, _ := url.Parse("https://shop.example/")
	s.origin = u
	v := view{st: PageState{URL: "https://shop.example/"}, items: []Item{
		{Ref: 1, Tag: "div", Name: "Linen Shirt $48.00", Visible: true, Clickable: true, Region: "main"},
		{Ref: 2, Tag: "div", Name: "Free shipping", Visible: true, Clickable: true, Region: "header"},
		{Ref: 3, Tag: "button", Name: "Canvas Tote", Visible: true, Card: true, Region: "main"},
		{Ref: 4, Tag: "button", Name: "Quick view", Visible: true, Card: true, Region: "main"},
		{Ref: 5, Tag: "button", Name: "Add to wishlist", Visible: true, Card: true, Region: "main"},
		{Ref: 6, Tag: "button", Name: "Add to cart", Visible: true, Card: true, Region: "main", Form: &Form{Action: "https://shop.example/cart/add"}},
		{Ref: 7, Tag: "a", Name: "Wool Beanie", Href: "https://shop.example/products/wool-beanie", Visible: true, Card: true, Region: "main"},
		{Ref: 8, Tag: "button", Name: "M", Type: "radio", Group: "Size", Visible: true, Card: true, Region: "main"},
	}}
	ctls, _ := (domFinder{}).products(s, v)
	var got []int
	for _, c := range ctls {
		got = append(got, c.item.Ref)
	}
	if want := []int{7, 1, 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("product controls by ref %v, want %v (the link, then the card, then the button)", got, want)
	}
}

// TestCartEvidenceWords: what a page says after an add, in the platforms'
// own words, counts as the cart holding the item; an empty cart or an add
// to something else does not.
func TestCartEvidenceWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"Item added to your cart View cart (1) Check out", true},                      // Shopify Dawn cart-notification ("general.cart.item_added")
		{"“Canvas Tote” has been added to your cart. View cart", true},                 // WooCommerce wc_add_to_cart_message
		{"You added Linen Shirt to your shopping cart.", true},                         // Magento_Checkout Controller/Cart/Add.php
		{"Success: You have added Canvas Tote to your shopping cart! ×", true},         // OpenCart catalog/language/en-gb/checkout/cart.php text_success
		{"Product successfully added to your shopping cart Proceed to checkout", true}, // PrestaShop cart modal (ps_shoppingcart; 1.6 blockcart layer_cart)
		{"Ok, 1 item was added to your cart. What's next?", true},                      // BigCommerce Cornerstone cart preview modal
		{"Your cart is empty. Continue shopping", false},
		{"Linen Shirt has been added to your Wish List. Click here to continue shopping.", false}, // Magento_Wishlist
		{"You added Linen Shirt to your wish list.", false},
		{"Add to cart Linen Shirt $48.00", false},
	} {
		got, _ := (&session{}).cartEvidence(PageState{Text: c.text})
		if got != c.want {
			t.Errorf("cartEvidence(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestFinderTermsWords: a box that agrees to the store's terms, in the
// platforms' own words, is one a shopper ticks before checkout; a box that
// signs up for mail never is.
func TestFinderTermsWords(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"I agree with the terms and conditions.", true},                             // Shopify help centre's cart snippet; Archetype themes
		{"I have read and agree to the website terms and conditions", true},          // WooCommerce checkout/terms.php
		{"I agree to the Terms of Service", true},                                    // a cart-terms app
		{"I accept the Terms & Conditions", true},                                    // Terms & Conditions, ampersand
		{"By checking this box, I consent to the store's return policy", true},       // a refund-policy gate
		{"Email me with news and offers", false},                                     // Shopify checkout's marketing box
		{"Text me with news and offers", false},                                      // Shopify checkout's SMS box
		{"Subscribe to our newsletter", false},                                       // a newsletter box
		{"I agree to receive marketing emails and accept the privacy policy", false}, // marketing with a policy
		{"Remember me", false},
		{"This order is a gift", false},
	} {
		if got := termsWords(c.name); got != c.want {
			t.Errorf("termsWords(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFinderCheckoutWords: what reads as starting checkout, in stores'
// words.
func TestFinderCheckoutWords(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"Check out", true},                  // Shopify Dawn main-cart-footer, BigCommerce Cornerstone
		{"Proceed to checkout", true},        // WooCommerce cart/proceed-to-checkout-button.php, PrestaShop
		{"Proceed to Checkout", true},        // Magento Luma cart
		{"Checkout", true},                   // OpenCart, SFRA
		{"Proceed to Secure Checkout", true}, // "secure" between
		{"Go to the checkout", true},
		{"Continue to secure checkout", true},
		{"Begin checkout", true},
		{"Start Checkout", true},
		{"Secure checkout", true},
		{"Check-out now", true},
		{"Express checkout", false}, // a wallet's button (and forbidden)
		{"Continue shopping", false},
		{"View cart", false},
		{"Start shopping", false},
	} {
		if got := reCheckout.MatchString(c.name); got != c.want {
			t.Errorf("reCheckout(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCartNamedWithItsCount: the header's cart link of Vendure 3.7's
// Next.js storefront (the lab's https://vendure.test/, its header's
// <a href="/cart">, an icon and the words "1 Shopping Cart") opens the
// cart for B as its address does for A.
func TestCartNamedWithItsCount(t *testing.T) {
	it := Item{Ref: 1, Tag: "a", Role: "link", Name: "1 Shopping Cart", Text: "1 Shopping Cart", Href: "https://vendure.test/cart", Visible: true, Region: "header"}
	v := view{st: PageState{URL: "https://vendure.test/product/cordless-mouse"}, items: []Item{it}}
	if cs := (axFinder{}).cart(v); len(cs) != 1 {
		t.Errorf("B finds %d cart controls, want the link %q", len(cs), it.Name)
	}
	if cs := (domFinder{}).cart(v); len(cs) != 1 {
		t.Errorf("A finds %d cart controls, want the link %q", len(cs), it.Name)
	}
	for _, name := range []string{"3 items in cart", "0 Shopping Cart", "Cart (2)"} {
		if !reCart.MatchString(name) {
			t.Errorf("%q does not read as the cart", name)
		}
	}
}
