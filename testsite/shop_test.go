package testsite_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/poppy-browser/poppy-browser/testsite"
)

// The shop finds 200 bags, shows the product, reads the cart from its
// cookie and marks the checkout form submission, its card field the
// User's.
func TestShop(t *testing.T) {
	s, _ := startSite(t, nil)
	c := s.Client()
	_, body := get(t, c, testsite.ShopURL()+"/search?q="+testsite.ShopQuery, nil)
	if n := strings.Count(body, "<li data-cents="); n != testsite.ShopResults {
		t.Errorf("a search for %q finds %d products, want %d", testsite.ShopQuery, n, testsite.ShopResults)
	}
	if !strings.Contains(body, testsite.ShopProduct) {
		t.Errorf("the results do not list %s", testsite.ShopProduct)
	}
	_, body = get(t, c, testsite.ShopURL()+"/p/37", nil)
	if !strings.Contains(body, "<h1>"+testsite.ShopProduct+"</h1>") || !strings.Contains(body, "Add to cart") {
		t.Errorf("the product page:\n%s", body)
	}
	req, _ := http.NewRequest("GET", testsite.ShopURL()+"/cart", nil)
	req.AddCookie(&http.Cookie{Name: "shop_cart", Value: "37:2"})
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cart strings.Builder
	if _, err := io.Copy(&cart, resp.Body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cart.String(), "Subtotal €179.90") || !strings.Contains(cart.String(), "Cart (2)") {
		t.Errorf("the cart with two daypacks:\n%s", cart.String())
	}
	req, _ = http.NewRequest("GET", testsite.ShopStartURL(), nil)
	req.AddCookie(&http.Cookie{Name: "shop_cart", Value: "37:2"})
	fresh, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Body.Close()
	if cs := fresh.Cookies(); len(cs) != 1 || cs[0].Name != "shop_cart" || cs[0].MaxAge >= 0 {
		t.Errorf("the start page does not empty the cart: %v", cs)
	}
	_, body = get(t, c, testsite.ShopURL()+"/checkout", nil)
	if !strings.Contains(body, `data-poppy-user-step="submission"`) || !strings.Contains(body, `name="card" autocomplete="cc-number" data-poppy-user-step="interaction"`) {
		t.Errorf("the checkout form is not marked:\n%s", body)
	}
}
