// start.js: connect once every part is set up.
connect();
