// From an accessibility tree to the items shopper B acts on: the roles it
// acts on, the values and properties it reads of a node, a list's options
// and a node's text, and the consent dialogs held in iframes.

package shop

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
)

// axRoles are the roles B acts on.
var axRoles = map[string]bool{
	"button": true, "link": true, "combobox": true, "menuitem": true, "radio": true, "checkbox": true,
	"tab": true, "switch": true, "option": true, "menuitemradio": true, "PopUpButton": true,
}

func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return ""
}

func axProp(n *accessibility.Node, name accessibility.PropertyName) (*accessibility.Value, bool) {
	for _, p := range n.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return nil, false
}

func axBool(n *accessibility.Node, name accessibility.PropertyName) bool {
	v, ok := axProp(n, name)
	if !ok || v == nil {
		return false
	}
	var b bool
	if json.Unmarshal(v.Value, &b) == nil {
		return b
	}
	var s string
	return json.Unmarshal(v.Value, &s) == nil && s == "true"
}

// axItems turns an accessibility tree into the items B acts on, and lists
// the iframes (their DOM nodes) named like a consent dialog.
func axItems(nodes []*accessibility.Node) (its []Item, consentFrames []cdp.BackendNodeID) {
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	ancestors := func(n *accessibility.Node, f func(role, name string) bool) bool {
		for p := byID[n.ParentID]; p != nil; p = byID[p.ParentID] {
			if f(axString(p.Role), axString(p.Name)) {
				return true
			}
		}
		return false
	}
	// priced tells whether the list item or article around n shows a
	// price, as a product's tile does and a blog post's does not.
	pricedCards := map[accessibility.NodeID]bool{}
	priced := func(n *accessibility.Node) bool {
		for p := byID[n.ParentID]; p != nil; p = byID[p.ParentID] {
			if r := axString(p.Role); r != "listitem" && r != "article" {
				continue
			}
			if v, ok := pricedCards[p.NodeID]; ok {
				return v
			}
			v := rePrice.MatchString(axText(p, byID))
			pricedCards[p.NodeID] = v
			return v
		}
		return false
	}
	for _, n := range nodes {
		role := axString(n.Role)
		name := strings.TrimSpace(axString(n.Name))
		if role == "Iframe" && !n.Ignored && n.BackendDOMNodeID != 0 && len(consentFrames) < 4 {
			// A consent manager's dialog in a frame (Sourcepoint's "SP
			// Consent Message", TrustArc's "TrustArc Cookie Consent
			// Manager"): named so, or inside a consent dialog.
			consent := reConsentName.MatchString(name) || ancestors(n, func(r, nm string) bool {
				return reConsentName.MatchString(nm) && (r == "dialog" || r == "alertdialog" || r == "region")
			})
			if consent {
				consentFrames = append(consentFrames, n.BackendDOMNodeID)
			}
		}
		if n.Ignored || !axRoles[role] || name == "" || n.BackendDOMNodeID == 0 {
			continue
		}
		it := Item{Ref: -1, Role: role, Name: clipText(name, 160), Visible: true,
			Disabled: axBool(n, accessibility.PropertyNameDisabled),
			Checked:  axBool(n, accessibility.PropertyNameChecked) || role == "option" && axBool(n, accessibility.PropertyNameSelected),
			backend:  n.BackendDOMNodeID}
		if _, ok := axProp(n, accessibility.PropertyNamePressed); ok && role == "button" {
			it.Type = "toggle" // a swatch: chosen like a radio
			it.Checked = axBool(n, accessibility.PropertyNamePressed)
		}
		if _, ok := axProp(n, accessibility.PropertyNameExpanded); ok && !axBool(n, accessibility.PropertyNameExpanded) {
			it.Collapsed = true
		}
		if v, ok := axProp(n, accessibility.PropertyNameURL); ok {
			it.Href = axString(v)
		}
		ancestors(n, func(r, nm string) bool {
			if reConsentName.MatchString(nm) {
				// A consent banner is an overlay to dismiss whatever its
				// role: OneTrust's is a region named "Cookie banner".
				it.Dialog = true
			}
			switch r {
			case "dialog", "alertdialog":
				it.Dialog = true
				if it.DialogName == "" {
					it.DialogName = nm
				}
			case "banner":
				if it.Region == "" {
					it.Region = "header"
				}
			case "navigation":
				if it.Region == "" {
					it.Region = "nav"
				}
			case "main":
				if it.Region == "" {
					it.Region = "main"
				}
			case "listitem", "article":
				it.Card = true // a list of products is a list to a screen reader too
			case "contentinfo":
				if it.Region == "" {
					it.Region = "footer"
				}
			case "radiogroup", "group":
				if it.Group == "" && (r == "radiogroup" || reVariant.MatchString(nm)) {
					it.Group = nm
				}
			case "listbox":
				// Swatches as options of a named listbox (Magento).
				if it.Group == "" && role == "option" {
					it.Group, it.Type = nm, "listbox-option"
				}
			}
			return false
		})
		if it.Card {
			it.Priced = priced(n)
		}
		if role == "radio" && it.Group == "" {
			// A radio group no label names (Radix's, beside a <label>
			// not tied to it): named by the text just before it.
			for p := byID[n.ParentID]; p != nil; p = byID[p.ParentID] {
				if axString(p.Role) == "radiogroup" {
					it.Group = axTextBefore(p, byID)
					break
				}
			}
		}
		if role == "button" && it.Type == "" {
			if g := axListOption(n, byID); g != "" {
				// A plain button among its option's values: chosen
				// once, as A chooses it (dom.js: optionGroup).
				it.Type, it.Group, it.Stateless = "radio", g, true
			}
		}
		if role == "combobox" || role == "PopUpButton" {
			it.Options = axOptions(n, byID)
			it.Expanded = axBool(n, accessibility.PropertyNameExpanded)
		}
		its = append(its, it)
	}
	return its, consentFrames
}

// consentFrameItems reads the accessibility trees of the child frames
// drawn in the iframes consent, with their items marked as in a dialog.
func (s *session) consentFrameItems(consent []cdp.BackendNodeID) []Item {
	ctx, cancel := s.stepCtx()
	defer cancel()
	frames, err := s.page.Frames(ctx)
	if err != nil {
		return nil
	}
	var out []Item
	for _, f := range frames {
		want := false
		for _, b := range consent {
			want = want || b == f.Owner
		}
		if !want || reNotConsentFrame.MatchString(f.URL) {
			continue
		}
		nodes, err := s.page.AXTreeIn(ctx, f.ID)
		if err != nil {
			continue
		}
		s.rememberFrame(f)
		its, _ := axItems(nodes)
		for _, it := range its {
			it.frame, it.Dialog = f.ID, true
			out = append(out, it)
		}
	}
	return out
}

// axListOption names the option whose value a plain button is when the
// button is alone in an item of a list of 2 to 30 such buttons of short
// words, under a short text that names an option: EverShop 2.2's
// <div><span>Color</span></div><ul><li><button>White</button></li>…</ul>,
// as a screen reader meets it (the text, then the list).
func axListOption(n *accessibility.Node, byID map[accessibility.NodeID]*accessibility.Node) string {
	// Chromium's tree may hold ignored nodes between them: climb over them.
	up := func(c *accessibility.Node) *accessibility.Node {
		for p := byID[c.ParentID]; p != nil; p = byID[p.ParentID] {
			if !p.Ignored && axString(p.Role) != "generic" && axString(p.Role) != "none" {
				return p
			}
		}
		return nil
	}
	li := up(n)
	if li == nil || axString(li.Role) != "listitem" {
		return ""
	}
	list := up(li)
	if list == nil || axString(list.Role) != "list" || len(list.ChildIDs) < 2 || len(list.ChildIDs) > 30 {
		return ""
	}
	for _, k := range list.ChildIDs {
		c := byID[k]
		if c == nil || axString(c.Role) != "listitem" || len(strings.TrimSpace(axText(c, byID))) > 24 {
			return ""
		}
	}
	if prev := axTextBefore(list, byID); reVariant.MatchString(prev) {
		return prev
	}
	return ""
}

// axTextBefore is the short text just before the node box within its
// parent (over parents that hold nothing else), as a screen reader reads
// it before reaching the box: "Size" above its buttons, "screen size"
// above a radio group no label is tied to. "" when there is none or it
// is longer than a label (40 bytes).
func axTextBefore(box *accessibility.Node, byID map[accessibility.NodeID]*accessibility.Node) string {
	parent := byID[box.ParentID]
	for parent != nil && len(parent.ChildIDs) < 2 && byID[parent.ParentID] != nil {
		box, parent = parent, byID[parent.ParentID]
	}
	if parent == nil {
		return ""
	}
	prev := ""
	for _, k := range parent.ChildIDs {
		if k == box.NodeID {
			break
		}
		prev = strings.TrimSpace(axText(byID[k], byID))
	}
	if len(prev) > 40 {
		return ""
	}
	return prev
}

// axText is the text under a node, as a screen reader reads it through
// (its static texts), within a bound.
func axText(n *accessibility.Node, byID map[accessibility.NodeID]*accessibility.Node) string {
	var b strings.Builder
	seen := 0
	var walk func(c *accessibility.Node, depth int)
	walk = func(c *accessibility.Node, depth int) {
		if c == nil || depth > 10 || seen > 300 || b.Len() > 600 {
			return
		}
		seen++
		if axString(c.Role) == "StaticText" {
			b.WriteString(axString(c.Name))
			b.WriteByte(' ')
			return
		}
		for _, k := range c.ChildIDs {
			walk(byID[k], depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// axOptions lists the options under a combobox, in order.
func axOptions(n *accessibility.Node, byID map[accessibility.NodeID]*accessibility.Node) []Option {
	var out []Option
	var walk func(id accessibility.NodeID, depth int)
	walk = func(id accessibility.NodeID, depth int) {
		c := byID[id]
		if c == nil || depth > 4 || len(out) >= 50 {
			return
		}
		if r := axString(c.Role); r == "option" || r == "MenuListOption" {
			name := axString(c.Name)
			out = append(out, Option{I: len(out), Text: name, Value: name,
				Disabled: axBool(c, accessibility.PropertyNameDisabled), Selected: axBool(c, accessibility.PropertyNameSelected)})
			return
		}
		for _, k := range c.ChildIDs {
			walk(k, depth+1)
		}
	}
	for _, k := range n.ChildIDs {
		walk(k, 0)
	}
	return out
}

// reConsentName names a consent or cookie banner.
var reConsentName = regexp.MustCompile(`(?i)cookie|consent|privacy|gdpr`)
