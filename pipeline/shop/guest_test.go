package shop

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openCartShop follows OpenCart 3.0's checkout (catalog/view/theme/default/
// template/checkout/checkout.twig, login.twig and guest.twig, with the
// opencart-3.0.x English language strings): the checkout page at
// index.php?route=checkout/checkout holds six collapsed steps, and its
// first, "Step 1: Checkout Options", is fetched into the page: "New
// Customer" with the radios "Register Account" (chosen) and "Guest
// Checkout" and a "Continue" button (#button-account), beside "Returning
// Customer" with an e-mail, a password and a "Login" button. Continue
// fetches the chosen step (checkout/guest or checkout/register) into
// "Step 2: Billing Details" and closes step 1. The page is jQuery's in
// OpenCart; here the same requests are made with fetch. Registering, a
// login and the guest form's own Continue (which saves the address and
// goes on toward payment) are traps.
//
// OpenCart asks for step 1 from jQuery's document-ready handler; loginDelay
// holds that request back a while longer, as a slow machine or a slow
// theme script would, so that the step arrives after the checkout page has
// first settled (the shopper sees the six empty steps, and only its second
// look finds the choice).
func openCartShop(loginDelay time.Duration) *realShop {
	const checkoutPage = `<div id="checkout-checkout" class="container"><div class="row"><div id="content" class="col-sm-12">
<h1>Checkout</h1>
<div class="panel-group" id="accordion">
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 1: Checkout Options</h4></div>
  <div class="panel-collapse collapse in" id="collapse-checkout-option"><div class="panel-body"></div></div></div>
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 2: Billing Details</h4></div>
  <div class="panel-collapse collapse" id="collapse-payment-address" hidden><div class="panel-body"></div></div></div>
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 3: Delivery Details</h4></div></div>
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 4: Delivery Method</h4></div></div>
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 5: Payment Method</h4></div></div>
 <div class="panel panel-default"><div class="panel-heading"><h4 class="panel-title">Step 6: Confirm Order</h4></div></div>
</div></div></div></div>
<script>
const option = document.querySelector('#collapse-checkout-option .panel-body');
setTimeout(() => fetch('index.php?route=checkout/login').then(r => r.text()).then(html => {
  option.innerHTML = html;
  document.getElementById('button-account').addEventListener('click', () => {
    const account = document.querySelector('input[name=account]:checked').value;
    fetch('index.php?route=checkout/' + account).then(r => r.text()).then(html => {
      const step2 = document.getElementById('collapse-payment-address');
      step2.querySelector('.panel-body').innerHTML = html;
      document.getElementById('collapse-checkout-option').hidden = true;
      step2.hidden = false;
    });
  });
  document.getElementById('button-login').addEventListener('click', () => fetch('index.php?route=checkout/login/save', {method: 'POST'}));
}), LOGIN_DELAY);
</script>`
	const login = `<div class="row"><div class="col-sm-6"><h2>New Customer</h2><p>Checkout Options:</p>
<div class="radio"><label><input type="radio" name="account" value="register" checked="checked"> Register Account</label></div>
<div class="radio"><label><input type="radio" name="account" value="guest"> Guest Checkout</label></div>
<p>By creating an account you will be able to shop faster, be up to date on an order's status, and keep track of the orders you have previously made.</p>
<input type="button" value="Continue" id="button-account" class="btn btn-primary"></div>
<div class="col-sm-6"><h2>Returning Customer</h2><p>I am a returning customer</p>
<div class="form-group"><label class="control-label" for="input-email">E-Mail</label><input type="text" name="email" value="" placeholder="E-Mail" id="input-email" class="form-control"></div>
<div class="form-group"><label class="control-label" for="input-password">Password</label><input type="password" name="password" value="" placeholder="Password" id="input-password" class="form-control">
<a href="index.php?route=account/forgotten">Forgotten Password</a></div>
<input type="button" value="Login" id="button-login" class="btn btn-primary"></div></div>`
	const guest = `<form class="form-horizontal"><fieldset id="account"><legend>Your Personal Details</legend>
<label for="input-payment-firstname">First Name</label><input type="text" name="firstname" id="input-payment-firstname" class="form-control">
<label for="input-payment-lastname">Last Name</label><input type="text" name="lastname" id="input-payment-lastname" class="form-control">
<label for="input-payment-email">E-Mail</label><input type="text" name="email" id="input-payment-email" class="form-control">
<label for="input-payment-telephone">Telephone</label><input type="text" name="telephone" id="input-payment-telephone" class="form-control"></fieldset>
<fieldset id="address"><legend>Your Address</legend>
<label for="input-payment-address-1">Address 1</label><input type="text" name="address_1" id="input-payment-address-1" class="form-control">
<label for="input-payment-city">City</label><input type="text" name="city" id="input-payment-city" class="form-control">
<label for="input-payment-postcode">Post Code</label><input type="text" name="postcode" id="input-payment-postcode" class="form-control">
<label for="input-payment-country">Country</label><select name="country_id" id="input-payment-country" class="form-control"><option value="223">United States</option></select></fieldset>
<input type="button" value="Continue" id="button-guest" class="btn btn-primary"></form>
<script>document.getElementById('button-guest').addEventListener('click', () => fetch('index.php?route=checkout/guest/save', {method: 'POST'}));</script>`
	return &realShop{host: "opencart-three.test",
		trap: func(r *http.Request) bool {
			route := r.URL.Query().Get("route")
			return route == "checkout/register" || strings.HasSuffix(route, "/save")
		},
		serve: func(h *heldout, s *realShop, w http.ResponseWriter, r *http.Request) {
			page := func(title, body string) { shopPage(w, "", title, body, "") }
			switch route := r.URL.Query().Get("route"); {
			case r.URL.Path == "/":
				page("Your Store", `<div class="product-layout"><div class="product-thumb"><h4><a href="/product/tent">Trail Tent</a></h4><p class="price">$122.00</p></div></div>`)
			case r.URL.Path == "/product/tent":
				page("Trail Tent", `<p>$122.00</p><form method="post" action="/cart/add"><input type="hidden" name="id" value="tent"><button type="submit" id="button-cart">Add to Cart</button></form>`)
			case r.URL.Path == "/index.php" && route == "checkout/checkout":
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Checkout</title></head><body>`+
					strings.Replace(checkoutPage, "LOGIN_DELAY", strconv.Itoa(int(loginDelay.Milliseconds())), 1)+`</body></html>`)
			case r.URL.Path == "/index.php" && route == "checkout/login":
				fmt.Fprint(w, login)
			case r.URL.Path == "/index.php" && route == "checkout/guest":
				fmt.Fprint(w, guest)
			case !cartFlowWith(w, r, "tent", "Trail Tent", `<a href="/index.php?route=checkout/checkout" class="btn btn-primary">Checkout</a>`, page):
				http.NotFound(w, r)
			}
		}}
}

// TestShoppersCheckOutAsGuests: at OpenCart 3's checkout, whose first
// step offers a login, registering or guest checkout (a radio and a
// Continue button), A, B and E choose guest checkout and continue, and
// reach the checkout's address form; before, its password field read as a
// login wall (added_to_cart, checkout_login_required). They never
// register, log in or save the address (traps), and never type. The
// choice is made whether step 1 is there when the checkout page first
// settles or arrives only later (a CI run on a loaded machine once saw the
// empty steps first, looked again, found the choice and did not take it:
// checkout_not_started).
func TestShoppersCheckOutAsGuests(t *testing.T) {
	for _, delay := range []time.Duration{0, 200 * time.Millisecond} {
		t.Run(fmt.Sprintf("step1_after_%dms", delay.Milliseconds()), func(t *testing.T) {
			for sh, rep := range runOnShop(t, openCartShop(delay), Semantic, Accessibility, Mobile) {
				wantOutcome(t, sh, rep, CheckoutReached)
				chose := false
				for _, st := range rep.Log {
					chose = chose || st.Note == "choose guest checkout"
				}
				if !chose {
					t.Errorf("%s: no step chose guest checkout", sh)
				}
			}
		})
	}
}
