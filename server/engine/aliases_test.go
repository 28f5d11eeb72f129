package engine

import (
	"slices"
	"testing"
)

func TestFindAliases(t *testing.T) {
	text := "The heart rate (HR) rises with exercise. The end diastolic volume (EDV) is the filling. " +
		"An mRNA read by many ribosomes is a polyribosome (or polysome). " +
		"Classical conditioning, also called Pavlovian conditioning, pairs two stimuli. " +
		"In operant conditioning, also known as instrumental conditioning, organisms learn from consequences. " +
		"More thyroid hormone, or thyroxin, raises the rate. " +
		"The cell (see Figure 2) divides. These are called **stop codons** or **nonsense codons**. " +
		"This volume is the **end diastolic volume (EDV)** or **preload**. " +
		"An organism has (1) unconditioned (unlearned) responses, or reflexes, and (2) learned ones. " +
		"This is called **higher-order conditioning**, or **second-order conditioning**. " +
		"The M checkpoint, or spindle checkpoint, delays anaphase. " +
		"Their partners, the cyclin-dependent kinases (Cdks), are enzymes. The cell (Cat) is not one. " +
		"Neurons need support from the nervous glia (also called glial cells or neuroglia). " +
		"The result is excess demand, also called a shortage, and buyers bid. An antibody, also called an immunoglobulin (Ig), binds antigen. " +
		"White blood cells are collectively called leukocytes. This process is called clonal selection. " +
		"DNA is copied into a strand of RNA, also called an RNA transcript."
	al := findAliases(text)
	tests := []struct {
		name string
		want []string
	}{
		{"heart rate", []string{"HR"}},
		{"HR", []string{"heart rate"}},
		{"end diastolic volume", []string{"EDV", "preload"}},
		{"polyribosome", []string{"polysome"}},
		{"classical conditioning", []string{"Pavlovian conditioning"}},
		{"Pavlovian conditioning", []string{"Classical conditioning"}},
		{"operant conditioning", []string{"instrumental conditioning"}},
		{"thyroid hormone", []string{"thyroxin"}},
		{"cell", nil}, // a bracket that is no other name
		{"stop codons", []string{"nonsense codons"}},
		{"preload", []string{"end diastolic volume"}},
		{"reflexes", nil}, // not "responses": the name began before the aside
		{"higher-order conditioning", []string{"second-order conditioning"}},
		{"excess demand", []string{"shortage"}},
		{"demand", nil},
		{"antibody", []string{"immunoglobulin"}},
		{"leukocytes", []string{"White blood cells"}},
		{"this process", nil},
		{"clonal selection", nil},
		{"RNA", nil},                                 // an RNA transcript is RNA, not another name of it
		{"checkpoint", nil},                          // "spindle checkpoint" is a kind of checkpoint
		{"cyclin-dependent kinase", []string{"Cdk"}}, // initials in mixed case, in the answer's number
		{"Cdks", []string{"cyclin-dependent kinases"}},
		{"Cat", nil},
		{"glia", []string{"glial cell", "neuroglia"}}, // "glia" reads as one, so its names come in the singular
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

func TestNumeralOrdinal(t *testing.T) {
	tests := map[string]string{"eighteenth century": "18th century", "the First Republic": "the 1st Republic", "mitochondria": ""}
	for in, want := range tests {
		if got := numeralOrdinal(in); got != want {
			t.Errorf("numeralOrdinal(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInNumber(t *testing.T) {
	tests := []struct {
		name   string
		plural bool
		want   string
	}{
		{"nonsense codons", false, "nonsense codon"},
		{"nonsense codon", true, "nonsense codons"},
		{"cell bodies", false, "cell body"},
		{"ATP", true, "ATP"},
		{"physics", false, "physics"},
	}
	for _, tt := range tests {
		if got := inNumber(tt.name, tt.plural); got != tt.want {
			t.Errorf("inNumber(%q, %v) = %q, want %q", tt.name, tt.plural, got, tt.want)
		}
	}
}
