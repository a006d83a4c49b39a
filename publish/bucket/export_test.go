package bucket

// Internals the external tests reach.
var (
	ListPaged   = (*Bucket).list
	EtagMatches = etagMatches
)
