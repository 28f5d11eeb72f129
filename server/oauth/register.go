package oauth

import (
	"crypto/rand"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/studyloop/studyloop/server/clientaddr"
	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/respond"
	"github.com/studyloop/studyloop/server/studyloop"
)

// OAuth 2.0 Dynamic Client Registration, RFC 7591.

// maxRegistrationBytes caps a registration request body.
const maxRegistrationBytes = 64 << 10

// maxClientNameChars caps client_name.
const maxClientNameChars = 200

// HandleRegister answers POST /oauth/register, accepting what
// clientMetadata.problem accepts. application_type defaults to "web" and is
// answered back; it changes nothing.
func (s *Server) HandleRegister() http.Handler {
	type response struct {
		ClientID                string   `json:"client_id"`
		ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
		ClientName              string   `json:"client_name,omitempty"`
		RedirectURIs            []string `json:"redirect_uris"`
		GrantTypes              []string `json:"grant_types"`
		ResponseTypes           []string `json:"response_types"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
		ApplicationType         string   `json:"application_type"`
	}
	const badMetadata = "invalid_client_metadata"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := s.now()
		if ok, wait := s.registers.Allow(clientaddr.Key(r), now); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(ratelimit.RetryAfterSeconds(wait)))
			writeError(w, http.StatusTooManyRequests, "too_many_requests",
				fmt.Sprintf("Too many client registrations from this address; try again in %d seconds.", ratelimit.RetryAfterSeconds(wait)))
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeError(w, http.StatusBadRequest, badMetadata, "The request body must be JSON (Content-Type: application/json).")
			return
		}
		var req clientMetadata
		switch err := respond.DecodeJSON(w, r, maxRegistrationBytes, &req); {
		case errors.As(err, new(*http.MaxBytesError)):
			writeError(w, http.StatusRequestEntityTooLarge, badMetadata, "The request body is larger than 64 KiB.")
			return
		case errors.Is(err, respond.ErrUnreadable):
			writeError(w, http.StatusBadRequest, badMetadata, "The request body could not be read.")
			return
		case err != nil:
			writeError(w, http.StatusBadRequest, badMetadata, "The request body "+metadataProblem(err)+".")
			return
		}
		if code, problem := req.problem(); problem != "" {
			writeError(w, http.StatusBadRequest, code, problem)
			return
		}
		if req.ApplicationType == "" {
			req.ApplicationType = "web"
		}

		client := &studyloop.OAuthClient{
			ID:           "slc_" + rand.Text(), // 130 random bits
			Name:         req.ClientName,
			RedirectURIs: slices.Compact(slices.Clone(req.RedirectURIs)),
			CreatedAt:    now,
		}
		if err := s.store.CreateOAuthClient(r.Context(), client); err != nil {
			respond.LogServerError(s.logger, r, err)
			writeError(w, http.StatusInternalServerError, "server_error", "The client could not be registered.")
			return
		}
		writeJSON(w, http.StatusCreated, response{
			ClientID:                client.ID,
			ClientIDIssuedAt:        client.CreatedAt.Unix(),
			ClientName:              client.Name,
			RedirectURIs:            client.RedirectURIs,
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
			ApplicationType:         req.ApplicationType,
		})
	})
}

// clientMetadata is the client metadata (RFC 7591 §2) that Studyloop
// reads, whether sent to the registration endpoint or published as a
// Client ID Metadata Document; other members are ignored.
type clientMetadata struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
}

// problem returns the RFC 7591 error code and a description of what is
// wrong with the metadata, or two empty strings. Only public clients are
// accepted (token_endpoint_auth_method "none"), with the authorization code
// and refresh token grants. application_type (OpenID Connect Dynamic
// Registration §2) may be "web" or "native"; both follow the same redirect
// URI rules.
func (m *clientMetadata) problem() (code, description string) {
	const badMetadata, badRedirect = "invalid_client_metadata", "invalid_redirect_uri"
	if len(m.RedirectURIs) == 0 {
		return badRedirect, "redirect_uris is required and must list at least one URI."
	}
	if len(m.RedirectURIs) > maxRedirectURIs {
		return badRedirect, fmt.Sprintf("At most %d redirect URIs may be registered.", maxRedirectURIs)
	}
	for _, u := range m.RedirectURIs {
		if problem := checkRedirectURI(u); problem != "" {
			return badRedirect, fmt.Sprintf("Redirect URI %q: %s.", truncate(u, 200), problem)
		}
	}
	if problem := checkClientName(m.ClientName); problem != "" {
		return badMetadata, problem
	}
	switch m.TokenEndpointAuthMethod {
	case "", "none":
	default:
		return badMetadata, `Only public clients are accepted: token_endpoint_auth_method must be "none".`
	}
	switch m.ApplicationType {
	case "", "web", "native":
	default:
		return badMetadata, fmt.Sprintf(`Application type %q is not supported; use "web" or "native".`, truncate(m.ApplicationType, 100))
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return badMetadata, fmt.Sprintf("Grant type %q is not supported; use authorization_code and refresh_token.", truncate(g, 100))
		}
	}
	if len(m.GrantTypes) > 0 && !slices.Contains(m.GrantTypes, "authorization_code") {
		return badMetadata, "grant_types must include authorization_code."
	}
	for _, t := range m.ResponseTypes {
		if t != "code" {
			return badMetadata, fmt.Sprintf("Response type %q is not supported; use code.", truncate(t, 100))
		}
	}
	return "", ""
}

// metadataProblem says what is wrong with a body of client metadata that
// respond.UnmarshalOne refused.
func metadataProblem(err error) string {
	if errors.Is(err, respond.ErrTrailingData) {
		return "has more after its JSON object of client metadata"
	}
	return "is not one JSON object of client metadata"
}

// checkClientName returns what is wrong with a client_name, or "".
func checkClientName(name string) string {
	switch {
	case !utf8.ValidString(name):
		return "client_name must be valid UTF-8."
	case utf8.RuneCountInString(name) > maxClientNameChars:
		return fmt.Sprintf("client_name may have at most %d characters.", maxClientNameChars)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }):
		return "client_name may not contain control or formatting characters."
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// registerBurst is how many registrations one client may make at once when
// perHour may be made in an hour: three minutes' worth, at least 1. At the
// default 1200 an hour that is 60 at once, then one every 3 seconds.
func registerBurst(perHour int) int {
	return max(1, perHour/20)
}
