package engine

import (
	"slices"
	"testing"
)

func TestFindAliases(t *testing.T) {
	text := "The heart rate (HR) rises with exercise. The end diastolic volume (EDV) is the filling. " +
		"An mRNA read by many ribosomes is a polyribosome (or polysome). " +
		"Classical conditioning, also called Pavlovian conditioning, pairs two stimuli. " +
		"The cell (see Figure 2) divides."
	al := findAliases(text)
	tests := []struct {
		name string
		want []string
	}{
		{"heart rate", []string{"HR"}},
		{"HR", []string{"heart rate"}},
		{"end diastolic volume", []string{"EDV"}},
		{"polyribosome", []string{"polysome"}},
		{"classical conditioning", []string{"Pavlovian conditioning"}},
		{"Pavlovian conditioning", []string{"Classical conditioning"}},
		{"cell", nil}, // a bracket that is no other name
	}
	for _, tt := range tests {
		if got := al.of(tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("aliases of %q = %q, want %q", tt.name, got, tt.want)
		}
	}
	if !al.same("classical conditioning", "Pavlovian conditioning") || al.same("heart rate", "EDV") {
		t.Error("same is wrong")
	}
}
