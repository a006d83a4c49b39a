package readlayer

import (
	"fmt"
	"time"
)

// Row is one host's lookup record, decoded. A missing value is null
// (unmeasured), never zero.
type Row struct {
	host string
	vals []rowValue
	// Live is set for a row built from a live check rather than a snapshot.
	Live bool
}

type rowValue struct {
	ok bool
	s  string
	n  int64
}

// NewRow returns an all-null row of host.
func NewRow(host string) *Row {
	return &Row{host: host, vals: make([]rowValue, len(rowFields))}
}

// Host is the row's host.
func (r *Row) Host() string { return r.host }

// Str returns the string of field f, nil when null.
func (r *Row) Str(f int) *string {
	if v := r.vals[f]; v.ok {
		return &v.s
	}
	return nil
}

// Text returns the string or "" when null.
func (r *Row) Text(f int) string { return r.vals[f].s }

// Bool returns the boolean of field f, nil when null.
func (r *Row) Bool(f int) *bool {
	if v := r.vals[f]; v.ok {
		b := v.n != 0
		return &b
	}
	return nil
}

// IsTrue and IsFalse report a non-null true or false; IsNull reports null.
func (r *Row) IsTrue(f int) bool  { v := r.vals[f]; return v.ok && v.n != 0 }
func (r *Row) IsFalse(f int) bool { v := r.vals[f]; return v.ok && v.n == 0 }
func (r *Row) IsNull(f int) bool  { return !r.vals[f].ok }

// Int returns the integer of field f, nil when null.
func (r *Row) Int(f int) *int64 {
	if v := r.vals[f]; v.ok {
		return &v.n
	}
	return nil
}

// Time returns the time of field f (UTC), nil when null.
func (r *Row) Time(f int) *time.Time {
	if v := r.vals[f]; v.ok {
		t := time.UnixMicro(v.n).UTC()
		return &t
	}
	return nil
}

// SetStr, SetBool and SetNull set field f.
func (r *Row) SetStr(f int, s string) { r.vals[f] = rowValue{ok: true, s: s} }
func (r *Row) SetNull(f int)          { r.vals[f] = rowValue{} }
func (r *Row) SetBool(f int, b bool) {
	r.vals[f] = rowValue{ok: true}
	if b {
		r.vals[f].n = 1
	}
}

// Set stores a canonical datasets value (nil for null) in field f.
func (r *Row) Set(f int, v any) error {
	switch x := v.(type) {
	case nil:
		r.vals[f] = rowValue{}
	case string:
		r.vals[f] = rowValue{ok: true, s: x}
	case bool:
		r.SetBool(f, x)
	case int64:
		r.vals[f] = rowValue{ok: true, n: x}
	case time.Time:
		r.vals[f] = rowValue{ok: true, n: x.UnixMicro()}
	case *string:
		if x == nil {
			r.vals[f] = rowValue{}
			return nil
		}
		return r.Set(f, *x)
	case *bool:
		if x == nil {
			r.vals[f] = rowValue{}
			return nil
		}
		r.SetBool(f, *x)
	default:
		return fmt.Errorf("field %s: unexpected %T", rowFields[f].name, v)
	}
	return nil
}

// CopyFields copies fields fs of from into r.
func (r *Row) CopyFields(from *Row, fs ...int) {
	for _, f := range fs {
		r.vals[f] = from.vals[f]
	}
}
