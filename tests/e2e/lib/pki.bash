# Certificates made by the tests, relative to now, under $PKI (set by
# the caller): keys and CAs. Each test file makes its own leaves.

# newkey NAME: an EC P-256 key in $PKI/NAME.key
newkey() {
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
		-out "$PKI/$1.key" 2>/dev/null
}

# mkca NAME [ISSUER]: a CA certificate (self-signed, or by ISSUER)
mkca() {
	newkey "$1"
	if [ -z "${2:-}" ]; then
		openssl req -x509 -new -key "$PKI/$1.key" -subj "/CN=$1" -days 3650 \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,cRLSign \
			-out "$PKI/$1.crt" 2>/dev/null
	else
		openssl req -new -key "$PKI/$1.key" -subj "/CN=$1" -out "$PKI/$1.csr" 2>/dev/null
		printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' \
			>"$PKI/$1.ext"
		openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/$2.crt" -CAkey "$PKI/$2.key" \
			-CAcreateserial -days 3650 -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>/dev/null
	fi
}
