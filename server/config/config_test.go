package config

import (
	"strings"
	"testing"
	"time"

	"github.com/studyloop/studyloop/server/studyloop"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnvDefaults(t *testing.T) {
	c, err := FromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.BaseURL != "http://localhost:8080" || c.DatabaseURL != "sqlite:data/studyloop.db" {
		t.Fatalf("defaults = %+v", c)
	}
	if c.AccessTokenTTL != time.Hour || c.RefreshTokenTTL != 720*time.Hour || c.RegisterRateLimit != 1200 || c.SignUpRateLimit != 60 || c.Workers != 2 || c.UploadWorkers != 1 {
		t.Fatalf("defaults = %+v", c)
	}
	if c.Secure() {
		t.Fatal("http base URL reported secure")
	}
	wantQuotas := studyloop.Quotas{StudiesPerHour: 60, StudiesPerDay: 300, StoredChars: 50_000_000, UploadFilesPerDay: 200, UploadPagesPerDay: 2000, UploadBytesPerDay: 1 << 30}
	if c.Quotas != wantQuotas {
		t.Fatalf("quotas = %+v, want %+v", c.Quotas, wantQuotas)
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c Config)
	}{
		{"trailing slash trimmed", map[string]string{"BASE_URL": "https://study.example/"}, "", func(t *testing.T, c Config) {
			if c.BaseURL != "https://study.example" || !c.Secure() || c.MCPResource() != "https://study.example/mcp" {
				t.Errorf("got %q", c.BaseURL)
			}
		}},
		{"base url with path", map[string]string{"BASE_URL": "https://study.example/app"}, "BASE_URL", nil},
		{"base url ftp", map[string]string{"BASE_URL": "ftp://x"}, "BASE_URL", nil},
		{"bad duration", map[string]string{"ACCESS_TOKEN_TTL": "soon"}, "ACCESS_TOKEN_TTL", nil},
		{"bad int", map[string]string{"WORKERS": "-1"}, "WORKERS", nil},
		{"int with trailing junk", map[string]string{"WORKERS": "12abc"}, "WORKERS", nil},
		{"int with a fraction", map[string]string{"REGISTER_RATE_LIMIT": "5.5"}, "REGISTER_RATE_LIMIT", nil},
		{"fast site on by default", nil, "", func(t *testing.T, c Config) {
			if !c.FastSite {
				t.Error("FastSite off")
			}
		}},
		{"fast site off", map[string]string{"FAST_SITE": "off"}, "", func(t *testing.T, c Config) {
			if c.FastSite {
				t.Error("FastSite on")
			}
		}},
		{"fast site neither on nor off", map[string]string{"FAST_SITE": "no"}, "FAST_SITE", nil},
		{"sign-up limit off", map[string]string{"SIGNUP_RATE_LIMIT": "0"}, "", func(t *testing.T, c Config) {
			if c.SignUpRateLimit != 0 {
				t.Errorf("SignUpRateLimit = %d", c.SignUpRateLimit)
			}
		}},
		{"quotas", map[string]string{"QUOTA_STUDIES_PER_HOUR": "0", "QUOTA_STORED_CHARS": "1000", "QUOTA_UPLOAD_MIB_PER_DAY": "3"}, "", func(t *testing.T, c Config) {
			if c.Quotas.StudiesPerHour != 0 || c.Quotas.StudiesPerDay != 300 || c.Quotas.StoredChars != 1000 || c.Quotas.UploadBytesPerDay != 3<<20 {
				t.Errorf("Quotas = %+v", c.Quotas)
			}
		}},
		{"no upload workers", map[string]string{"UPLOAD_WORKERS": "0"}, "UPLOAD_WORKERS", nil},
		{"bad upload quota", map[string]string{"QUOTA_UPLOAD_MIB_PER_DAY": "1.5"}, "QUOTA_UPLOAD_MIB_PER_DAY", nil},
		{"bad db", map[string]string{"DATABASE_URL": "mysql://x"}, "DATABASE_URL", nil},
		{"bad level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL", nil},
		{"allowed hosts", map[string]string{"ALLOWED_HOSTS": "A.example, b.example,"}, "", func(t *testing.T, c Config) {
			if strings.Join(c.AllowedHosts, "|") != "a.example|b.example" {
				t.Errorf("AllowedHosts = %q", c.AllowedHosts)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want mention of %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	tests := []struct {
		v    string
		want []string // nil: an error
	}{
		{"10.0.0.0/8", []string{"10.0.0.0/8"}},
		{" 10.1.2.3/8 , fd00::/8,", []string{"10.0.0.0/8", "fd00::/8"}},
		{"192.0.2.1", []string{"192.0.2.1/32"}},
		{"2001:db8::1", []string{"2001:db8::1/128"}},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}},
		{"10.0.0.0/33", nil},
		{"proxy.example", nil},
		{"10.0.0.0/8,nope", nil},
	}
	for _, tt := range tests {
		c, err := FromEnv(env(map[string]string{"TRUSTED_PROXIES": tt.v}))
		if tt.want == nil {
			if err == nil {
				t.Errorf("TRUSTED_PROXIES=%q: no error", tt.v)
			}
			continue
		}
		if err != nil {
			t.Errorf("TRUSTED_PROXIES=%q: %v", tt.v, err)
			continue
		}
		var got []string
		for _, p := range c.TrustedProxies {
			got = append(got, p.String())
		}
		if len(got) != len(tt.want) {
			t.Errorf("TRUSTED_PROXIES=%q: %v, want %v", tt.v, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("TRUSTED_PROXIES=%q: %v, want %v", tt.v, got, tt.want)
			}
		}
	}
}
