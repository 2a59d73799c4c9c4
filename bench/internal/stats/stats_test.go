package stats

import "testing"

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5},
	} {
		in := append([]float64(nil), tc.in...)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Median reordered its input: %v", in)
			}
		}
	}
}

func TestPeakRSS(t *testing.T) {
	peak, err := PeakRSS("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if peak <= 0 {
		t.Fatalf("peak RSS %d", peak)
	}
	if _, err := PeakRSS("/nonexistent/status"); err == nil {
		t.Fatal("no error for a missing file")
	}
}
