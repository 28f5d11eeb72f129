package account

import "testing"

// TestPlaceholderHashCostsAsMuchAsARealOne checks the hash an unknown email
// is checked against: it is ready once NewService returns, parses, and has
// the parameters of a new account's hash, so that checking it takes as long
// as checking a real account's password (a malformed one would return at
// once and tell which emails have accounts).
func TestPlaceholderHashCostsAsMuchAsARealOne(t *testing.T) {
	s := NewService(nil, nil)
	got, err := parseHash(s.placeholderHash)
	if err != nil {
		t.Fatalf("placeholder hash %q: %v", s.placeholderHash, err)
	}
	realHash, err := HashPassword("a student's password")
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseHash(realHash)
	if err != nil {
		t.Fatal(err)
	}
	if got.memory != want.memory || got.time != want.time || got.threads != want.threads || len(got.key) != len(want.key) {
		t.Fatalf("placeholder m=%d t=%d p=%d key %d bytes, want m=%d t=%d p=%d key %d bytes like a new hash",
			got.memory, got.time, got.threads, len(got.key), want.memory, want.time, want.threads, len(want.key))
	}
	if CheckPassword(s.placeholderHash, "") || CheckPassword(s.placeholderHash, "a student's password") {
		t.Fatal("the placeholder hash matches a password")
	}
}
