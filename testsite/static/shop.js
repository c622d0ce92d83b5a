// The travel shop's page scripts: the results filter in place, and
// "Add to cart" keeps the cart in a cookie and says so in place.
"use strict";
const stock = document.getElementById("in-stock");
const price = document.getElementById("max-price");
function filter() {
  const max = Number(price.value);
  let n = 0;
  for (const li of document.querySelectorAll("#results li")) {
    const show = (!stock.checked || li.dataset.stock === "true") && (!max || Number(li.dataset.cents) < max);
    li.hidden = !show;
    if (show) n++;
  }
  document.getElementById("count").textContent = n + " results";
}
if (stock) {
  stock.addEventListener("change", filter);
  price.addEventListener("change", filter);
}
const add = document.getElementById("add");
if (add) {
  add.addEventListener("click", () => {
    const qty = Math.max(1, Math.min(9, Number(document.getElementById("qty").value) || 1));
    const cur = decodeURIComponent((document.cookie.match(/(?:^|; )shop_cart=([^;]*)/) || [])[1] || "");
    const cart = (cur ? cur + "." : "") + add.dataset.id + ":" + qty;
    document.cookie = "shop_cart=" + encodeURIComponent(cart) + "; path=/shop; SameSite=Lax; Secure";
    let total = 0;
    for (const p of cart.split(".")) total += Number(p.split(":")[1]) || 0;
    document.getElementById("cart-link").textContent = "Cart (" + total + ")";
    document.getElementById("added").textContent = "Added " + qty + " × " + document.querySelector("h1").textContent + " to your cart.";
  });
}
