package report

import (
	"slices"
	"testing"

	"hellobench/bench"
)

// The recorded quick run under testdata/profile: BenchmarkProfile of
// nethttp and nginx (perf on this project's VMs), and the allocation
// profiles of net/http's and fasthttp's in-memory benchmarks.
const (
	profileTxt = "testdata/profile/profile.txt"
	profileDir = "testdata/profile/profiles"
)

func readProfiles(t *testing.T) *Profiles {
	t.Helper()
	var rep Report
	if err := AddProfile(&rep, profileTxt, profileDir); err != nil {
		t.Fatal(err)
	}
	if rep.Profiles == nil {
		t.Fatal("no profiles read")
	}
	if !rep.Sections[ProfileSection].Quick {
		t.Error("the quick run's section is not marked quick")
	}
	return rep.Profiles
}

// TestProfileCategories sorts the recorded profiles' samples into the
// categories and checks every total, sample for sample.
func TestProfileCategories(t *testing.T) {
	p := readProfiles(t)
	want := map[string][]int64{ // in Categories' order
		"nethttp saturated": {1205, 237, 294, 97, 540, 38, 249, 42, 87},
		"nginx saturated":   {153, 30, 15, 0, 6, 1, 10, 0, 65},
	}
	var loads []string
	for _, r := range p.Rows {
		loads = append(loads, r.Server+" "+r.Load)
		var got []int64
		var sum int64
		for i, c := range r.Categories {
			if c.Category != Categories[i] {
				t.Fatalf("%s %s: category %d is %q, want %q", r.Server, r.Load, i, c.Category, Categories[i])
			}
			got = append(got, c.Samples)
			sum += c.Samples
		}
		// Every sample has one category: they add up to the total.
		if sum != r.Samples {
			t.Errorf("%s %s: the categories hold %d samples, the profile %d", r.Server, r.Load, sum, r.Samples)
		}
		if w, ok := want[r.Server+" "+r.Load]; ok && !slices.Equal(got, w) {
			t.Errorf("%s %s: samples by category %v, want %v", r.Server, r.Load, got, w)
		}
	}
	if w := []string{"nethttp saturated", "nethttp of=25%", "nginx saturated", "nginx of=25%"}; !slices.Equal(loads, w) {
		t.Fatalf("rows %q, want %q", loads, w)
	}
	r := p.Rows[0]
	if r.Samples != 2789 || r.Requests != 14693 || r.PeriodUS != 100 {
		t.Errorf("nethttp saturated: %d samples, %g requests, %g µs a sample; want 2789, 14693, 100", r.Samples, r.Requests, r.PeriodUS)
	}
	// 2789 samples of 100 µs over 14 693 requests.
	if got, want := r.Profiled(), 2789*100/14693.0; got != want {
		t.Errorf("nethttp saturated: %g µs per request profiled, want %g", got, want)
	}
	if got, want := r.Resolution(), 100/14693.0; got != want {
		t.Errorf("nethttp saturated: one sample is %g µs per request, want %g", got, want)
	}
}

// TestCategory checks the rules on stacks of the recorded profiles: the
// leaf's rule decides, a frame passed over leaves it to its caller, and a
// stack no rule names is other.
func TestCategory(t *testing.T) {
	for stack, want := range map[string]string{
		// A Go write down to the kernel's TCP: the kernel's.
		"runtime.goexit.abi0;net/http.(*conn).serve;bufio.(*Writer).Flush;syscall.write;syscall.Syscall;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];ksys_write_[k];vfs_write_[k];sock_write_iter_[k];tcp_sendmsg_[k]": CatTCP,
		// The same write, sampled in the system call's entry.
		"runtime.goexit.abi0;net/http.(*conn).serve;bufio.(*Writer).Flush;syscall.write;syscall.Syscall;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]": CatSyscall,
		// Its Go side, above the system call.
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.(*response).finishRequest;bufio.(*Writer).Flush": CatWrite,
		// An allocation is its caller's: parsing the headers.
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.readRequest;net/textproto.readMIMEHeader;runtime.mallocgc;runtime.(*mcache).nextFree": CatParse,
		// ... unless the collector's assist runs inside it.
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.readRequest;runtime.mallocgc;runtime.gcAssistAlloc;runtime.gcDrainN;runtime.scanobject":                                                                              CatGC,
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.serverHandler.ServeHTTP;net/http.(*ServeMux).ServeHTTP;net/http.(*ServeMux).findHandler":                                                                             CatRoute,
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;main.hello":                                                                                                                                    CatHandler,
		"runtime.mstart.abi0;runtime.mstart0;runtime.mstart1;runtime.sysmon;runtime.usleep.abi0;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_nanosleep_[k];hrtimer_nanosleep_[k];do_nanosleep_[k];schedule_[k]": CatSched,
		"runtime.goexit.abi0;net/http.(*conn).serve;net/http.(*conn).setState;time.Now":                                                                                                                                           CatOther,
		"[unknown];[nginx]":                           CatOther,
		"[unknown];[unknown];[unknown];__GI___writev": CatSyscall,
	} {
		if got := Category(stack); got != want {
			t.Errorf("%s: %q, want %q", stack, got, want)
		}
	}
}

// TestProfileSamplesAgree checks that a folded file whose samples are not
// the benchmark's count is refused.
func TestProfileSamplesAgree(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"nethttp_saturated", "nethttp_of25", "nginx_saturated", "nginx_of25"} {
		f, err := bench.ReadFolded(profileDir + "/" + name + ".folded.gz")
		if err != nil {
			t.Fatal(err)
		}
		if name == "nginx_of25" {
			f["[nginx]"]++ // one sample more than recorded
		}
		if err := bench.WriteFolded(dir+"/"+name+".folded.gz", f); err != nil {
			t.Fatal(err)
		}
	}
	var rep Report
	err := AddProfile(&rep, profileTxt, dir)
	if want := "testdata/profile/profile.txt: nginx_of25.folded.gz holds 289 samples, its benchmark counted 288"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestAddProfileNoRun checks that results without the run leave the
// report as it was.
func TestAddProfileNoRun(t *testing.T) {
	var rep Report
	if err := AddProfile(&rep, t.TempDir()+"/profile.txt", t.TempDir()); err != nil || rep.Profiles != nil || rep.Sections != nil {
		t.Fatalf("AddProfile of no file: %v, %v, %v; want nothing", err, rep.Profiles, rep.Sections)
	}
}

// TestAllocSites reads the recorded allocation profiles: net/http's
// allocations per request by site, fasthttp's none.
func TestAllocSites(t *testing.T) {
	p := readProfiles(t)
	if len(p.Allocs) != 2 || p.Allocs[0].Server != "nethttp" || p.Allocs[1].Server != "fasthttp" {
		t.Fatalf("allocations of %v, want nethttp's and fasthttp's", p.Allocs)
	}
	n := p.Allocs[0]
	if n.Runs != [2]int{200, 600} || n.BenchBytes != 2156 || n.BenchCount != 18 {
		t.Errorf("nethttp: runs %v, benchmark %g B/op %g allocs/op; want [200 600], 2156, 18", n.Runs, n.BenchBytes, n.BenchCount)
	}
	want := []AllocSite{
		{"net/http.Header.Clone", "net/http.(*response).WriteHeader", 448, 3},
		{"net/textproto.readMIMEHeader", "net/textproto.(*Reader).ReadMIMEHeader", 421.32, 3.3325},
		{"net/textproto.MIMEHeader.Set", "net/http.Header.Set", 400, 4},
		{"net/http.readRequest", "net/http.(*conn).readRequest", 320, 1},
		{"net/http.(*conn).readRequest", "net/http.(*conn).serve", 288, 2},
		{"net/url.parse", "net/url.ParseRequestURI", 144, 1},
		{"context.withCancel", "context.WithCancel", 80, 1},
		{"net/textproto.(*Reader).ReadLine", "net/http.readRequest", 32, 1},
		{"context.WithCancel", "net/http.(*conn).readRequest", 16, 1},
	}
	if !slices.Equal(n.Sites, want) {
		t.Errorf("nethttp's sites:\n%v\nwant\n%v", n.Sites, want)
	}
	// The sums are the listed sites'; the rest nets out near nothing.
	if n.Bytes != 2149.32 || n.Count != 17.333 || n.RestBytes != -34.74 || n.RestCount != 0.033 {
		t.Errorf("nethttp: %g B and %g allocations per request at the sites, %g and %g the rest; want 2149.32, 17.333, -34.74, 0.033", n.Bytes, n.Count, n.RestBytes, n.RestCount)
	}
	f := p.Allocs[1]
	if len(f.Sites) != 0 || f.Count >= minAllocs || f.BenchCount != 0 {
		t.Errorf("fasthttp: sites %v, %g allocations per request, benchmark %g allocs/op; want none", f.Sites, f.Count, f.BenchCount)
	}
}
