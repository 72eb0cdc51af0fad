# The README account (perf/peers/account.h) for Cap'n Proto.
@0xbe060dc0e32a1efc;  # file id, made once with `capnp id`

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("peercapnp");

enum OrderSide { buy @0; sell @1; }
enum OrderType { market @0; limit @1; stop @2; }

struct Order {
  id @0 :Int32;
  symbol @1 :Text;
  side @2 :OrderSide;
  type @3 :OrderType;
  price @4 :Float64;
  volume @5 :Float64;
}

struct Balance {
  currency @0 :Text;
  amount @1 :Float64;
}

struct Account {
  id @0 :Int32;
  name @1 :Text;
  state @2 :UInt8;      # FBE flags State
  wallet @3 :Balance;
  asset @4 :Balance;    # optional: a null pointer when absent (hasAsset())
  orders @5 :List(Order);
}
