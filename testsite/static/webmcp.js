// The airline's imperative WebMCP tool (WebMCP draft, section "Imperative
// API": document.modelContext.registerTool): an agent looks a booking up
// without reading the page. The check-in form is the airline's declarative
// tool (toolname="check_in" in templates/check-in.html); its submission
// mark leaves sending it to the User.
(function () {
  "use strict";
  const mc = document.modelContext;
  if (!mc) return; // a browser without WebMCP
  const bookings = {
    bkg_4Rt9: { flight: "DA 123, Lisbon (LIS) to Oslo (OSL)", departure: "tomorrow, 09:40", passenger: "Alex Rivera", checkIn: "/bookings/bkg_4Rt9/check-in" },
  };
  mc.registerTool({
    name: "lookup_booking",
    description: "Look up a booking by its reference: flight, departure, passenger and where to check in.",
    inputSchema: { type: "object", properties: { reference: { type: "string", description: "the booking reference, e.g. bkg_4Rt9" } }, required: ["reference"] },
    annotations: { readOnlyHint: true },
    execute: async ({ reference }) => {
      const b = bookings[reference];
      if (!b) return "No booking " + reference + ".";
      return `Booking ${reference}: flight ${b.flight}, departing ${b.departure}, passenger ${b.passenger}. Check in at ${b.checkIn}.`;
    },
  });
})();
