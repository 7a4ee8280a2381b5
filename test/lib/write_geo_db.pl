#!/usr/bin/perl
# write_geo_db.pl OUT.mmdb CIDR=LATITUDE,LONGITUDE...: a GeoLite2-City-like
# database for the Geo-API tests (doc/serving.md), written with MaxMind's
# own writer (Debian libmaxmind-db-writer-perl). Each record is
# { location => { latitude, longitude } }, what cvmfs_server serve reads.
# Reserved networks (127.0.0.0/8, ...) are kept: the tests live on loopback.
use strict;
use warnings;
use MaxMind::DB::Writer::Tree;

my $out = shift @ARGV or die "usage: $0 OUT.mmdb CIDR=LAT,LON...\n";
my %types = (location => 'map', latitude => 'double', longitude => 'double');
my $tree = MaxMind::DB::Writer::Tree->new(
  ip_version               => 6,
  record_size              => 24,
  database_type            => 'GeoLite2-City',
  languages                => ['en'],
  description              => { en => 'cvmfs Geo-API test database' },
  map_key_type_callback    => sub { $types{ $_[0] } },
  remove_reserved_networks => 0,
);
for my $arg (@ARGV) {
  my ($cidr, $lat, $lon) = $arg =~ /^([^=]+)=([-+0-9.]+),([-+0-9.]+)$/
    or die "$0: bad entry '$arg' (want CIDR=LAT,LON)\n";
  $tree->insert_network($cidr,
    { location => { latitude => $lat + 0.0, longitude => $lon + 0.0 } });
}
open my $fh, '>:raw', $out or die "$0: $out: $!\n";
$tree->write_tree($fh);
close $fh or die "$0: $out: $!\n";
