package testsite

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The airline's travel shop, under /shop on the Company's host: a page a
// model reads and acts on for a whole task (bench/sidebyside -task shop).
// A search for "bag" finds ShopResults products; the results page filters
// them in place (in stock, a price ceiling), a product page adds to the
// cart in place (a cookie), and the checkout form is marked submission,
// with the card number the User's.
const (
	ShopResults   = 200
	ShopProduct   = "Trailhead 28L Daypack" // in stock, under €100
	ShopQuery     = "bag"
	shopCartName  = "shop_cart"
	shopProductID = 37
)

// ShopURL is the shop's home page.
func ShopURL() string { return "https://" + CompanyDomain + "/shop" }

// ShopStartURL is the shop's home page with an empty cart: a task starts
// there, whatever an earlier one left in the browser's cart.
func ShopStartURL() string { return ShopURL() + "?new=1" }

//go:embed shop.html
var shopHTML string

var shopPages = template.Must(template.New("shop").Funcs(template.FuncMap{
	"euros": func(cents int) string { return fmt.Sprintf("€%d.%02d", cents/100, cents%100) },
}).Parse(shopHTML))

// product is one product of the shop.
type product struct {
	ID      int
	Name    string
	Cents   int
	InStock bool
	Rating  string
	Reviews int
	Kind    string
}

var (
	shopMakers = []string{"Trailhead", "Summit", "Harbour", "Nomad", "Transit", "Meridian", "Ridge", "Coastal", "Metro", "Alder"}
	shopKinds  = []string{"Daypack", "Duffel Bag", "Weekender Bag", "Sling Bag", "Toiletry Bag", "Laptop Bag", "Tote Bag", "Camera Bag", "Packing Cube Bag", "Dry Bag"}
	shopSizes  = []string{"12L", "18L", "20L", "24L", "28L", "32L", "35L", "40L", "45L", "55L"}
)

// shopProducts is the catalogue, the same on every run.
func shopProducts() []product {
	out := make([]product, 0, ShopResults)
	for i := range ShopResults {
		p := product{
			ID:      i + 1,
			Name:    fmt.Sprintf("%s %s %s", shopMakers[i%len(shopMakers)], shopSizes[(i/len(shopMakers)+i)%len(shopSizes)], shopKinds[(i/3)%len(shopKinds)]),
			Cents:   2495 + (i*3701)%22000,
			InStock: i%3 != 1,
			Rating:  fmt.Sprintf("%d.%d", 3+i%2, (i*7)%10),
			Reviews: 4 + (i*13)%310,
		}
		if p.ID == shopProductID {
			p.Name, p.Cents, p.InStock, p.Rating, p.Reviews = ShopProduct, 8995, true, "4.8", 318
		}
		p.Kind = strings.Fields(p.Name)[2]
		out = append(out, p)
	}
	return out
}

// shopData is what the shop's pages show.
type shopData struct {
	Page     string
	Title    string
	Cart     int
	Query    string
	Results  []product
	Product  product
	Related  []product
	Lines    []cartLine
	Subtotal int
}

type cartLine struct {
	Product product
	Qty     int
}

// serveShop registers the shop on mux.
func (s *Site) serveShop(mux *http.ServeMux) {
	all := shopProducts()
	mux.HandleFunc("GET /shop", func(w http.ResponseWriter, r *http.Request) {
		d := shopData{Page: "home", Title: "Travel shop", Results: all[30:38]}
		if r.URL.Query().Has("new") {
			http.SetCookie(w, &http.Cookie{Name: shopCartName, Path: "/shop", MaxAge: -1, Secure: true})
			r.Header.Del("Cookie")
		}
		shopRender(w, r, d)
	})
	mux.HandleFunc("GET /shop/search", func(w http.ResponseWriter, r *http.Request) {
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		var found []product
		for _, p := range all {
			if q != "" && strings.Contains(strings.ToLower(p.Name+" bag"), strings.ToLower(q)) {
				found = append(found, p)
			}
		}
		shopRender(w, r, shopData{Page: "search", Title: "Search: " + q, Query: q, Results: found})
	})
	mux.HandleFunc("GET /shop/p/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if err != nil || id < 1 || id > len(all) {
			http.NotFound(w, r)
			return
		}
		p := all[id-1]
		shopRender(w, r, shopData{Page: "product", Title: p.Name, Product: p, Related: all[id%190 : id%190+6]})
	})
	mux.HandleFunc("GET /shop/cart", func(w http.ResponseWriter, r *http.Request) {
		d := shopData{Page: "cart", Title: "Your cart"}
		for id, qty := range shopCart(r) {
			if id >= 1 && id <= len(all) {
				d.Lines = append(d.Lines, cartLine{Product: all[id-1], Qty: qty})
				d.Subtotal += all[id-1].Cents * qty
			}
		}
		shopRender(w, r, d)
	})
	mux.HandleFunc("GET /shop/checkout", func(w http.ResponseWriter, r *http.Request) {
		shopRender(w, r, shopData{Page: "checkout", Title: "Checkout"})
	})
	mux.HandleFunc("POST /shop/order", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.shopOrders++
		s.mu.Unlock()
		shopRender(w, r, shopData{Page: "ordered", Title: "Thank you"})
	})
}

// ShopOrders is the number of orders placed since New.
func (s *Site) ShopOrders() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shopOrders
}

// shopCart reads the cart cookie: "id:qty" pairs joined by ".".
func shopCart(r *http.Request) map[int]int {
	out := map[int]int{}
	c, err := r.Cookie(shopCartName)
	if err != nil {
		return out
	}
	v, _ := url.QueryUnescape(c.Value)
	for _, pair := range strings.Split(v, ".") {
		id, qty, ok := strings.Cut(pair, ":")
		i, err1 := strconv.Atoi(id)
		n, err2 := strconv.Atoi(qty)
		if ok && err1 == nil && err2 == nil && n > 0 && n < 100 {
			out[i] += n
		}
	}
	return out
}

func shopRender(w http.ResponseWriter, r *http.Request, d shopData) {
	for _, n := range shopCart(r) {
		d.Cart += n
	}
	var buf bytes.Buffer
	if err := shopPages.Execute(&buf, d); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}
