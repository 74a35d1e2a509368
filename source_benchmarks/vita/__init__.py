"""The VitaBench family (meituan-longcat/vitabench): delivery (zh source) and instore (en source)."""
