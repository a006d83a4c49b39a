package datasets

// Storing one value into Columns: each Go type checked against its
// column type and put into the column's typed slice, or a null.

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
	"unsafe"
)

func (c *Columns) setRow(i int, r Row) error {
	t := c.table
	if len(r) != len(t.Columns) {
		return fmt.Errorf("table %s row %d: %d values for %d columns: %w",
			t.Name, i, len(r), len(t.Columns), ErrInvalidRow)
	}
	for j, v := range r {
		if err := c.set(i, j, v); err != nil {
			return fmt.Errorf("table %s row %d column %s: %w", t.Name, i, t.Columns[j].Name, err)
		}
	}
	return nil
}

// set stores v, converted to its canonical form, at row i of column j.
func (c *Columns) set(i, j int, v any) error {
	col := &c.table.Columns[j]
	vec := &c.vecs[j]
	if vec.valid != nil {
		vec.valid[i] = v != nil
	}
	if v == nil {
		return c.setNull(i, j)
	}
	switch col.Type {
	case String:
		switch x := v.(type) {
		case string:
			vec.str[i] = x
			return nil
		case *string:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.str[i] = *x
			return nil
		}
	case JSON:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case json.RawMessage:
			s = string(x)
		case []byte:
			s = string(x)
		case *string:
			if x == nil {
				return c.setNull(i, j)
			}
			s = *x
		default:
			return typeError(col, v)
		}
		if !jsonValid(s) {
			return fmt.Errorf("invalid JSON text %.40q: %w", s, ErrInvalidRow)
		}
		vec.str[i] = s
		return nil
	case Bool:
		switch x := v.(type) {
		case bool:
			vec.bln[i] = x
			return nil
		case *bool:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.bln[i] = *x
			return nil
		}
	case Int64:
		switch x := v.(type) {
		case int64:
			vec.num[i] = x
			return nil
		case int:
			vec.num[i] = int64(x)
			return nil
		case int32:
			vec.num[i] = int64(x)
			return nil
		case *int64:
			if x == nil {
				return c.setNull(i, j)
			}
			vec.num[i] = *x
			return nil
		}
	case Float64:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		case *float64:
			if x == nil {
				return c.setNull(i, j)
			}
			f = *x
		default:
			return typeError(col, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("non-finite float %v (use null for unmeasured): %w", f, ErrInvalidRow)
		}
		vec.flt[i] = f
		return nil
	case Timestamp, Date:
		var t time.Time
		switch x := v.(type) {
		case time.Time:
			t = x
		case *time.Time:
			if x == nil {
				return c.setNull(i, j)
			}
			t = *x
		default:
			return typeError(col, v)
		}
		if col.Type == Timestamp {
			vec.num[i] = t.UnixMicro()
		} else {
			vec.num[i] = dateDays(t)
		}
		return nil
	}
	return typeError(col, v)
}

func (c *Columns) setNull(i, j int) error {
	vec := &c.vecs[j]
	if vec.valid == nil {
		return fmt.Errorf("null in a column that is not nullable: %w", ErrInvalidRow)
	}
	vec.valid[i] = false
	switch vec.store {
	case inStr:
		vec.str[i] = ""
	case inNum:
		vec.num[i] = 0
	case inFlt:
		vec.flt[i] = 0
	case inBln:
		vec.bln[i] = false
	}
	return nil
}

func typeError(c *Column, v any) error {
	return fmt.Errorf("%T is not a %s value: %w", v, c.Type, ErrInvalidRow)
}

// dateDays is the day number since 1970-01-01 of t's own calendar date.
func dateDays(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// jsonValid checks JSON text without copying it.
func jsonValid(s string) bool {
	return json.Valid(unsafe.Slice(unsafe.StringData(s), len(s)))
}
