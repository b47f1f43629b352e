// Package positive fills in the numeric settings a caller left unset: a
// zero or negative duration, size or count takes its default.
package positive

// Number is the kinds of setting Or takes (time.Duration among them).
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// Or returns v when it is positive, else def.
func Or[T Number](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
