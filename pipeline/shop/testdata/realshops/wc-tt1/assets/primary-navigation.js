// Twenty Twenty-One 1.7, assets/js/primary-navigation.js: the handler of
// the phone's menu button (navMenu('primary')), as the theme ships it.
function twentytwentyoneToggleAriaExpanded( el ) {
	if ( 'true' !== el.getAttribute( 'aria-expanded' ) ) {
		el.setAttribute( 'aria-expanded', 'true' );
	} else {
		el.setAttribute( 'aria-expanded', 'false' );
	}
}
( function() {
	var navMenu = function( id ) {
		var wrapper = document.body,
			mobileButton = document.getElementById( id + '-mobile-menu' ),
			navMenuEl = document.getElementById( 'site-navigation' );
		if ( ! navMenuEl ) {
			return;
		}
		if ( mobileButton ) {
			mobileButton.onclick = function() {
				wrapper.classList.toggle( id + '-navigation-open' );
				wrapper.classList.toggle( 'lock-scrolling' );
				twentytwentyoneToggleAriaExpanded( mobileButton );
				mobileButton.focus();
			};
		}
	};
	window.addEventListener( 'load', function() {
		new navMenu( 'primary' );
	} );
}() );
