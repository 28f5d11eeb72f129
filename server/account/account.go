// Package account manages student accounts: sign-up with a normalised,
// unique email and an Argon2id-hashed password; sign-in that compares in
// constant time and slows down repeated failures per account and per IP
// address; changing the password, which ends every other session and
// every agent grant; password reset by a single-use link; and deleting an
// account with everything in it.
package account

import (
	"context"
	"fmt"
	"time"

	"github.com/studyloop/studyloop/server/ratelimit"
	"github.com/studyloop/studyloop/server/studyloop"
)

// Users is the storage accounts need (store.DB implements it).
type Users interface {
	CreateUser(ctx context.Context, u *studyloop.User) error
	UserByEmail(ctx context.Context, email string) (*studyloop.User, error)
	UserByID(ctx context.Context, id int64) (*studyloop.User, error)
	// SetPassword also ends the user's sessions and open password resets.
	SetPassword(ctx context.Context, userID int64, hash string) error
	EndUserGrants(ctx context.Context, userID int64, at time.Time) (int64, error)
	DeleteUser(ctx context.Context, userID int64) error
	CreatePasswordReset(ctx context.Context, userID int64, hash string, expires time.Time) error
	PasswordResetUser(ctx context.Context, hash string, at time.Time) (*studyloop.User, error)
	// ResetPassword spends a reset token and sets the password as
	// SetPassword does, returning the user.
	ResetPassword(ctx context.Context, hash, passwordHash string, at time.Time) (int64, error)
}

// Options tunes sign-in throttling. A nil *Options, or a zero field, means
// the default written beside the field.
type Options struct {
	// AccountFailures is how many failed sign-ins one account may have
	// within FailureWindow before each further attempt is delayed (default 5).
	AccountFailures int
	// IPFailures is the same for one client address (default 20), as
	// keyed by the caller (the web server uses clientaddr.Key: an
	// IPv4 address or an IPv6 /64).
	IPFailures int
	// FailureWindow is how long a failure is remembered (default 15m).
	FailureWindow time.Duration
	// MaxDelay caps the delay between attempts (default 15m).
	MaxDelay time.Duration
	// Now returns the current time (default time.Now).
	Now func() time.Time
}

// Service signs students up and in.
type Service struct {
	users    Users
	now      func() time.Time
	accounts *Throttle
	ips      *Throttle
	// resetEmails and resetIPs limit password-reset requests per typed
	// address and per client.
	resetEmails *Throttle
	resetIPs    *Throttle
	// placeholderHash is a valid hash of no one's password, checked for an
	// unknown email so that it costs as much as a wrong password.
	placeholderHash string
}

// NewService returns the account service over users.
func NewService(users Users, opts *Options) *Service {
	o := Options{AccountFailures: 5, IPFailures: 20, FailureWindow: 15 * time.Minute, MaxDelay: 15 * time.Minute, Now: time.Now}
	if opts != nil {
		if opts.AccountFailures > 0 {
			o.AccountFailures = opts.AccountFailures
		}
		if opts.IPFailures > 0 {
			o.IPFailures = opts.IPFailures
		}
		if opts.FailureWindow > 0 {
			o.FailureWindow = opts.FailureWindow
		}
		if opts.MaxDelay > 0 {
			o.MaxDelay = opts.MaxDelay
		}
		if opts.Now != nil {
			o.Now = opts.Now
		}
	}
	placeholder, err := HashPassword("no account has this password")
	if err != nil {
		panic(err) // crypto/rand.Read never fails
	}
	return &Service{
		users:           users,
		now:             o.Now,
		accounts:        NewThrottle(o.AccountFailures, o.FailureWindow, o.MaxDelay),
		ips:             NewThrottle(o.IPFailures, o.FailureWindow, o.MaxDelay),
		resetEmails:     NewThrottle(resetsPerEmail, time.Hour, time.Hour),
		resetIPs:        NewThrottle(resetsPerIP, time.Hour, time.Hour),
		placeholderHash: placeholder,
	}
}

// ThrottledError is returned by SignIn when the account or the IP address
// has failed too often recently; no password was checked.
type ThrottledError struct {
	RetryAfter time.Duration
	// Reset is set for password-reset requests.
	Reset bool
}

func (e *ThrottledError) Error() string {
	if e.Reset {
		return fmt.Sprintf("Too many reset requests. Try again in %d seconds.", e.Seconds())
	}
	return fmt.Sprintf("Too many failed sign-ins. Try again in %d seconds.", e.Seconds())
}

// Seconds is RetryAfter rounded up to whole seconds, at least 1.
func (e *ThrottledError) Seconds() int {
	return ratelimit.RetryAfterSeconds(e.RetryAfter)
}

// ErrBadCredentials is returned by SignIn for an unknown email or a wrong
// password alike, so that the answer does not reveal which accounts exist.
var ErrBadCredentials = &studyloop.Error{Code: studyloop.EUNAUTHORIZED, Message: "That email and password do not match an account."}

// SignUp creates an account. Invalid input is an EINVALID error, an email
// that already has an account an ECONFLICT error.
func (s *Service) SignUp(ctx context.Context, email, password string) (*studyloop.User, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	if err := ValidatePassword(password); err != nil {
		return nil, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	u := &studyloop.User{Email: email, PasswordHash: hash}
	if err := s.users.CreateUser(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// SignIn checks an email and password coming from the client whose address
// key is ip (an address, or an IPv6 /64 prefix).
// It returns ErrBadCredentials when they do not match and a
// *ThrottledError while the account or the address must wait.
func (s *Service) SignIn(ctx context.Context, email, password, ip string) (*studyloop.User, error) {
	normalized, err := NormalizeEmail(email)
	if err != nil {
		normalized = email
	}
	accountKey, ipKey := "email:"+normalized, "ip:"+ip
	accountWait, ipWait := s.accounts.Begin(accountKey), s.ips.Begin(ipKey)
	if accountWait > 0 || ipWait > 0 {
		if accountWait == 0 {
			s.accounts.Done(accountKey)
		}
		if ipWait == 0 {
			s.ips.Done(ipKey)
		}
		return nil, &ThrottledError{RetryAfter: max(accountWait, ipWait)}
	}
	u, err := s.users.UserByEmail(ctx, normalized)
	switch studyloop.ErrorCode(err) {
	case "":
	case studyloop.ENOTFOUND:
		// Spend the same work as for a real account, so that timing does
		// not tell which emails have accounts.
		CheckPassword(s.placeholderHash, password)
		s.accounts.Fail(accountKey)
		s.ips.Fail(ipKey)
		return nil, ErrBadCredentials
	default:
		s.accounts.Done(accountKey)
		s.ips.Done(ipKey)
		return nil, err
	}
	if !CheckPassword(u.PasswordHash, password) {
		s.accounts.Fail(accountKey)
		s.ips.Fail(ipKey)
		return nil, ErrBadCredentials
	}
	s.accounts.Reset(accountKey)
	s.ips.Done(ipKey)
	return u, nil
}
