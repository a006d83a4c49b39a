package shop

import (
	"net/url"
	"testing"
)

func TestForbidden(t *testing.T) {
	cartForm := &Form{Action: "https://shop.example/cart/add", Method: "post"}
	for _, tc := range []struct {
		name string
		it   Item
		want string
	}{
		// WooCommerce's place-order button (woocommerce/woocommerce,
		// templates/checkout/payment.php: id place_order, name
		// woocommerce_checkout_place_order).
		{"woocommerce place order", Item{Tag: "button", Type: "submit", Name: "Place order", Text: "Place order", ID: "place_order",
			NameAttr: "woocommerce_checkout_place_order", Form: &Form{Action: "https://shop.example/checkout/", Address: 6, Email: 1}}, GuardPaymentControl},
		{"place order by id only", Item{Tag: "button", Type: "submit", Name: "Continue", ID: "place_order"}, GuardPaymentControl},
		// WooCommerce's add button (templates/single-product/add-to-cart/simple.php:
		// name add-to-cart, class single_add_to_cart_button).
		{"woocommerce add to cart", Item{Tag: "button", Type: "submit", Name: "Add to cart", NameAttr: "add-to-cart",
			Hint: "single_add_to_cart_button button alt", Form: &Form{Action: "https://shop.example/product/tee/", Method: "post", Text: 1}}, ""},
		// Shopify Dawn (Shopify/dawn, snippets/buy-buttons.liquid and
		// sections/main-cart-footer.liquid): add, the dynamic "Buy it now",
		// and the cart's checkout button.
		{"dawn add to cart", Item{Tag: "button", Type: "submit", Name: "Add to cart", NameAttr: "add", Hint: "product-form__submit button", Form: cartForm}, ""},
		{"dawn buy it now", Item{Tag: "button", Type: "button", Name: "Buy it now", Hint: "shopify-payment-button__button"}, GuardPaymentControl},
		{"dawn check out", Item{Tag: "button", Type: "submit", Name: "Check out", ID: "checkout", NameAttr: "checkout",
			Form: &Form{Action: "https://shop.example/cart", Method: "post", Text: 1}}, ""},
		{"shopify checkout pay now", Item{Tag: "button", Type: "submit", Name: "Pay now"}, GuardPaymentControl},
		// Magento 2's payment step (Magento_Checkout, title "Place Order").
		{"magento place order", Item{Tag: "button", Type: "submit", Name: "Place Order", Title: "Place Order", Hint: "action primary checkout"}, GuardPaymentControl},
		{"magento proceed to checkout", Item{Tag: "button", Type: "button", Name: "Proceed to Checkout", Title: "Proceed to Checkout"}, ""},
		{"express paypal by aria", Item{Tag: "button", Aria: "PayPal", Name: "PayPal"}, GuardPaymentControl},
		{"apple pay", Item{Tag: "button", Name: "Buy with Apple Pay"}, GuardPaymentControl},
		{"complete purchase", Item{Tag: "button", Name: "Complete purchase"}, GuardPaymentControl},
		{"confirm and pay", Item{Tag: "button", Name: "Confirm and pay"}, GuardPaymentControl},
		{"pay amount", Item{Tag: "button", Name: "Pay $48.00"}, GuardPaymentControl},
		{"order now", Item{Tag: "button", Name: "Order now"}, GuardPaymentControl},
		{"pay alone", Item{Tag: "button", Name: "Pay"}, GuardPaymentControl},
		{"buy alone", Item{Tag: "button", Name: "Buy"}, GuardPaymentControl},
		{"submit payment", Item{Tag: "button", Name: "Submit payment"}, GuardPaymentControl},
		{"finalize order", Item{Tag: "button", Name: "Finalize order"}, GuardPaymentControl},
		{"buy in a product name is fine", Item{Tag: "a", Name: "Buyer's guide to linen", Href: "https://shop.example/blogs/guide"}, ""},
		{"sign in", Item{Tag: "button", Name: "Sign in"}, GuardAccount},
		{"log in link", Item{Tag: "a", Name: "Log in", Href: "https://shop.example/account/login"}, GuardAccount},
		{"account link by path", Item{Tag: "a", Name: "Your profile", Href: "https://shop.example/account/login"}, GuardLink},
		{"create account", Item{Tag: "a", Name: "Create an account", Href: "https://shop.example/pages/join"}, GuardAccount},
		{"subscribe", Item{Tag: "button", Type: "submit", Name: "Subscribe", Form: &Form{Action: "https://shop.example/contact", Email: 1, Fields: 1}}, GuardAccount},
		{"signup form submit", Item{Tag: "button", Type: "submit", Name: "Go", Form: &Form{Action: "https://shop.example/contact", Email: 1, Fields: 1}}, GuardSignupForm},
		{"payment form submit", Item{Tag: "button", Type: "submit", Name: "Continue", Form: &Form{Action: "https://shop.example/step", Card: 3}}, GuardPaymentForm},
		{"login form submit", Item{Tag: "input", Type: "submit", Value: "Continue", Form: &Form{Action: "https://shop.example/step", Password: 1}}, GuardPaymentForm},
		{"form posting to an order endpoint", Item{Tag: "button", Type: "submit", Name: "Go", Form: &Form{Action: "https://shop.example/order/create"}}, GuardFormAction},
		{"card field", Item{Tag: "input", Type: "text", Field: "card"}, GuardCardField},
		{"password field", Item{Tag: "input", Type: "password", Field: "password"}, GuardCardField},
		{"email field", Item{Tag: "input", Type: "email", Field: "email"}, GuardTextField},
		{"search field", Item{Tag: "input", Type: "search", Field: "text"}, GuardTextField},
		{"label of a card field", Item{Tag: "label", Name: "Card number", Field: "card", Type: "label-text"}, GuardCardField},
		{"card expiry select", Item{Tag: "select", Field: "select", Form: &Form{Card: 2}}, GuardCardField},
		{"captcha checkbox", Item{Tag: "input", Type: "checkbox", Name: "I'm not a robot", Captcha: true}, GuardCaptcha},
		{"not a robot words", Item{Tag: "label", Name: "I'm not a robot"}, GuardCaptcha},
		{"mailto", Item{Tag: "a", Name: "Email us", Href: "mailto:help@shop.example"}, GuardScheme},
		{"accept cookies", Item{Tag: "button", Type: "button", Name: "Accept all", Dialog: true}, ""},
		// SFRA's cart button (templates/default/cart/checkoutButtons.isml)
		// leads to the pipeline Checkout-Login, the checkout's guest or
		// login gate: following it submits nothing.
		{"sfra checkout button", Item{Tag: "a", Role: "button", Name: "Checkout", Text: "Checkout",
			Href: "https://shop.example/on/demandware.store/Sites-RefArch-Site/en_US/Checkout-Login"}, ""},
		{"checkout words on a payment address", Item{Tag: "a", Name: "Checkout", Href: "https://shop.example/checkout/payment"}, GuardLink},
		{"other words on a login address", Item{Tag: "a", Name: "Continue", Href: "https://shop.example/on/demandware.store/Sites-RefArch-Site/en_US/Checkout-Login"}, GuardLink},
		{"log in words on a checkout gate", Item{Tag: "a", Name: "Log in", Href: "https://shop.example/on/demandware.store/Sites-RefArch-Site/en_US/Checkout-Login"}, GuardAccount},
		{"checkout words on an account address", Item{Tag: "a", Name: "Checkout", Href: "https://shop.example/account/checkout"}, GuardLink},
		{"close newsletter", Item{Tag: "button", Type: "button", Name: "×", Aria: "Close", Dialog: true}, ""},
		{"product link", Item{Tag: "a", Name: "Linen Shirt", Href: "https://shop.example/products/linen-shirt"}, ""},
		{"variant select", Item{Tag: "select", Field: "select", Form: cartForm}, ""},
		{"variant radio", Item{Tag: "input", Type: "radio", Field: "radio", Form: cartForm}, ""},
		{"cart link", Item{Tag: "a", Name: "Cart (1)", Href: "https://shop.example/cart"}, ""},
		{"display is not pay", Item{Tag: "button", Name: "Display options", Hint: "display-toggle"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Forbidden(tc.it); got != tc.want {
				t.Errorf("Forbidden = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRefuseRequest(t *testing.T) {
	for _, tc := range []struct {
		url    string
		refuse bool
	}{
		// WooCommerce places the order with a POST to ?wc-ajax=checkout
		// (woocommerce/woocommerce, assets/js/frontend/checkout.js posts to
		// wc_checkout_params.checkout_url).
		{"https://shop.example/?wc-ajax=checkout", true},
		{"https://shop.example/?wc-ajax=update_order_review", true},
		{"https://shop.example/?wc-ajax=add_to_cart", false},
		// Shopify's AJAX cart API (POST /cart/add.js) adds to cart.
		{"https://shop.example/cart/add.js", false},
		{"https://shop.example/cart/add", false},
		{"https://shop.example/cart", false},
		{"https://shop.example/api/cart/add", false},
		{"https://shop.example/checkout/place-order", true},
		{"https://shop.example/account/login", true},
		{"https://shop.example/newsletter", true},
		{"https://shop.example/trap/buy-now", true},
		{"https://shop.example/api/payments/intent", true},
		{"https://shop.example/orders", true},
	} {
		u, _ := url.Parse(tc.url)
		if got := RefuseRequest("POST", u) != ""; got != tc.refuse {
			t.Errorf("RefuseRequest(POST %s) refuses = %v, want %v", tc.url, got, tc.refuse)
		}
	}
}

func TestForbiddenTool(t *testing.T) {
	for name, want := range map[string]bool{
		"add_to_cart": false, "search_products": false, "begin_checkout": false, "view_cart": false,
		"place_order": true, "complete_checkout": true, "submit_payment": true, "pay": true, "login": true,
		"create_account": true, "subscribe_newsletter": true, "checkout_and_pay": true,
	} {
		if got := forbiddenTool(name, ""); got != want {
			t.Errorf("forbiddenTool(%q) = %v, want %v", name, got, want)
		}
	}
	if !forbiddenTool("finish", "Place the order and pay with the saved card") {
		t.Error("a tool described as placing an order is not forbidden")
	}
	// A tool that opens the checkout page, described by what the page
	// holds (testdata/realshops/mcpb, the MCP-B way), is not paying; one
	// described as completing, paying or charging is.
	for _, c := range []struct {
		name, description string
		want              bool
	}{
		{"goToCheckout", "Open the checkout page to enter shipping and payment details", false},
		{"checkout", "Go to checkout", false},
		{"checkout", "Checks out and pays with the saved card", true},
		{"checkout", "Completes the checkout", true},
		{"checkout", "Places the order", true},
		{"startCheckout", "Charge the customer's card", true},
		{"checkout", "Purchase the items in the cart", true},
	} {
		if got := forbiddenTool(c.name, c.description); got != c.want {
			t.Errorf("forbiddenTool(%q, %q) = %v, want %v", c.name, c.description, got, c.want)
		}
	}
}

func TestCheckoutPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   PageState
		want bool
	}{
		{"shopify checkout", PageState{URL: "https://shop.example/checkouts/cn/Z2NwLXVz", Title: "Checkout - Shop", Email: 1, Address: 6}, true},
		{"woocommerce checkout", PageState{URL: "https://shop.example/checkout/", Headings: []string{"Checkout"}, Address: 8, Email: 1}, true},
		{"checkout on a sibling host", PageState{URL: "https://checkout.shop.example/c/abc", Headings: []string{"Checkout"}, Card: 3}, true},
		{"spa checkout view", PageState{URL: "https://shop.example/#/checkout", Headings: []string{"Checkout"}}, true},
		{"checkout heading and fields off a checkout path", PageState{URL: "https://shop.example/secure/step1", Headings: []string{"Shipping address"}, Address: 5}, true},
		// Magento's cart lives at /checkout/cart/ (Magento 2 route checkout/cart).
		{"magento cart", PageState{URL: "https://shop.example/checkout/cart/", Headings: []string{"Shopping Cart"}, LineItems: 1}, false},
		{"login wall", PageState{URL: "https://shop.example/checkout/login", Headings: []string{"Sign in"}, Password: 1, Email: 1}, false},
		// Salesforce SFRA's Checkout-Login (templates/default/checkout/
		// checkoutLogin.isml): titled "Checkout", a login form and a
		// "Checkout as Guest" link. It is the gate, not the checkout.
		{"sfra checkout login", PageState{URL: "https://shop.example/on/demandware.store/Sites-RefArch-Site/en_US/Checkout-Login", Headings: []string{"Checkout", "Guest Checkout", "Returning Customers"}, Password: 1, Email: 1, Guest: 1}, false},
		{"captcha at checkout", PageState{URL: "https://shop.example/checkout", Title: "Verify you are human", Captcha: true}, false},
		{"cart with an express form", PageState{URL: "https://shop.example/cart", Headings: []string{"Your cart", "Express checkout"}, Card: 1}, false},
		{"a page that says checkout", PageState{URL: "https://shop.example/", Title: "Checkout our new arrivals"}, false},
		// PrestaShop's one-page checkout (classic theme checkout/
		// checkout.tpl, friendly URL "order"): its steps' titles over the
		// guest form, whose password is optional (it creates an account
		// only if filled).
		{"prestashop checkout", PageState{URL: "https://shop.example/order", Title: "Order", Headings: []string{"1 Personal Information", "2 Addresses", "3 Shipping Method", "4 Payment"}, Address: 2, Email: 1, Password: 1}, true},
		{"a delivery policy page", PageState{URL: "https://shop.example/content/1-delivery", Headings: []string{"Shipping methods"}}, false},
	} {
		if got := IsCheckoutPage(tc.st); got != tc.want {
			t.Errorf("%s: IsCheckoutPage = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestLoginWall(t *testing.T) {
	wall := PageState{URL: "https://shop.example/account/login", Headings: []string{"Sign in"}, Password: 1, Email: 1}
	if !IsLoginWall(wall) {
		t.Error("a login page with no guest option is not a wall")
	}
	guest := wall
	guest.Guest = 1 // "Checkout as Guest" (SFRA checkoutLogin.isml)
	if IsLoginWall(guest) {
		t.Error("a login page offering guest checkout is read as a wall")
	}
}

func TestStepURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://shop.example/products/tee?variant=1#reviews": "https://shop.example/products/tee",
		"https://shop.example/checkouts/cn/abc?key=secret":    "https://shop.example/" + Withheld,
		"https://checkout.shop.example/c/abc":                 "https://checkout.shop.example/" + Withheld,
		"https://shop.example/cart":                           "https://shop.example/cart",
		"https://shop.example/#/checkout":                     "https://shop.example/" + Withheld,
		"not a url":                                           "",
	} {
		if got := StepURL(raw, false); got != want {
			t.Errorf("StepURL(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := StepURL("https://shop.example/thanks", true); got != "https://shop.example/"+Withheld {
		t.Errorf("a checkout page's address is not withheld: %q", got)
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://shop.example/":              true,
		"shop.example":                       true,
		"https://shop.example/checkouts/abc": false,
		"http://127.0.0.1/":                  false,
		"ftp://shop.example/":                false,
		"https://user:pw@shop.example/":      false,
	} {
		if _, err := CheckURL(raw); (err == nil) != ok {
			t.Errorf("CheckURL(%q) error %v, want ok %v", raw, err, ok)
		}
	}
}

func TestSamePageAndHashRoutes(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://s.example/products/tee", "https://s.example/products/tee/", true},
		{"https://s.example/products/tee#reviews", "https://s.example/products/tee", true},
		{"https://s.example/#/products/tee", "https://s.example/#/", false},
		{"https://s.example/#!/cart", "https://s.example/#!/cart/", true},
		{"https://s.example/a", "https://t.example/a", false},
	} {
		if got := samePage(tc.a, tc.b); got != tc.same {
			t.Errorf("samePage(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	u, _ := url.Parse("https://s.example/#/products/linen-shirt")
	if p := routePath(u); !reProduct.MatchString(p) {
		t.Errorf("a hash-routed product link reads as %q, not a product", p)
	}
}
