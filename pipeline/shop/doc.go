// Package shop is svc's own agent paths: shoppers that try to put a
// product in a store's cart and reach its checkout, and stop there, before
// payment. Run runs one path on one store and returns a Report: the
// outcome in the leaderboard's words, a reason code, the step log and a
// small screenshot of the last page.
//
// Five paths run in headless Chromium (package browser): A reads the page
// as a careful agent does (text, aria-label, cart forms, Product JSON-LD,
// open shadow roots), B only through the accessibility tree, C only
// through the WebMCP tools the page offers, as Chromium's own WebMCP lists
// and calls them (its DevTools WebMCP domain), D asks a configured model for
// each action, and E is A on a phone. ucp and mcp are the leaderboard's
// plain-HTTP agent paths (leaderboard.RunPath), on one store.
//
// The browser paths share one flow and differ in what they can see (a
// finder per path). Every action of every path passes one guard,
// Forbidden, decided in Go on facts read afresh from the DOM in an
// isolated JavaScript world: a shopper never clicks a place-order, pay,
// buy-now or express-payment control, never focuses or types into any
// field, never logs in, registers, subscribes or touches a captcha. A
// second guard refuses, at the network, requests to order, payment and
// account endpoints, and every state-changing request once a checkout page
// is reached. A run stops at the first checkout page, and no checkout
// address is ever recorded: step URLs lose their query and fragment, and
// a checkout page's address is withheld. The one link into an account
// address a shopper follows is a checkout's own login gate, from a
// control that says Checkout (Salesforce SFRA's Checkout-Login): it
// submits nothing, and a gate that offers guest checkout is passed as a
// guest.
//
// What counts, in order: a wall, challenge or 5xx before the cart is
// blocked or error; once the page verifiably shows the cart holding the
// item (a cart count, an "added" message, or the cart's line items) the
// run is at least added_to_cart, and the first checkout page or view
// (IsCheckoutPage) makes it checkout_reached. A login wall, a challenge or
// another brand's host after the cart leaves added_to_cart with a reason.
package shop
